// Command lines of spawned servers: split as a POSIX shell would, run without a shell unless they use
// shell syntax (then through /bin/sh, saying why), `{port}` replaced, a default name taken from them.
import { describe, expect, it } from "vitest";
import {
  CommandLineError,
  mentionsPort,
  nameFromCommand,
  parseCommandLine,
  showCommand,
  withPort,
} from "@/lib/spawn/command-line";

describe("parseCommandLine", () => {
  it("splits words, quotes and backslashes as a shell does", () => {
    expect(parseCommandLine("python my_env.py --port {port}")).toEqual({
      kind: "argv",
      argv: ["python", "my_env.py", "--port", "{port}"],
      env: {},
    });
    expect(parseCommandLine(`node "my server.js"  --name 'it''s' a\\ b "x\\"y" ""`)).toEqual({
      kind: "argv",
      argv: ["node", "my server.js", "--name", "its", "a b", 'x"y', ""],
      env: {},
    });
    expect(parseCommandLine("  PYTHONPATH=. DEBUG='1 2' python -m pkg.server  ")).toEqual({
      kind: "argv",
      argv: ["python", "-m", "pkg.server"],
      env: { PYTHONPATH: ".", DEBUG: "1 2" },
    });
    // Quoted, these are plain characters.
    expect(parseCommandLine(`echo '|' "&&" '$HOME' "*"`)).toMatchObject({
      kind: "argv",
      argv: ["echo", "|", "&&", "$HOME", "*"],
    });
  });

  it("hands commands that need a shell to /bin/sh, saying why", () => {
    expect(parseCommandLine("cd srv && python main.py --port {port}")).toEqual({
      kind: "shell",
      command: "cd srv && python main.py --port {port}",
      reason: "& (background or &&)",
    });
    expect(parseCommandLine("python a.py | tee log")).toMatchObject({ kind: "shell", reason: "a pipe (|)" });
    expect(parseCommandLine("python $APP --port {port}")).toMatchObject({
      kind: "shell",
      reason: "a variable or substitution ($)",
    });
    expect(parseCommandLine(`python "$APP"`)).toMatchObject({ kind: "shell" });
    expect(parseCommandLine("python ~/env.py")).toMatchObject({ kind: "shell", reason: "a home folder (~)" });
    expect(parseCommandLine("python *.py")).toMatchObject({ kind: "shell", reason: "a glob (*)" });
    expect(parseCommandLine("python a.py > out.txt")).toMatchObject({ kind: "shell" });
  });

  it("refuses what no shell would run", () => {
    expect(() => parseCommandLine("")).toThrow(new CommandLineError("the command is empty"));
    expect(() => parseCommandLine("   ")).toThrow("the command is empty");
    expect(() => parseCommandLine("python 'my_env.py")).toThrow(`unclosed ' quote in "python 'my_env.py"`);
    expect(() => parseCommandLine('python "my_env.py')).toThrow('unclosed " quote');
    expect(() => parseCommandLine("A=1 B=2")).toThrow('no program in "A=1 B=2" (only variables)');
  });

  it("replaces {port} in every argument, or in the shell command", () => {
    const argv = parseCommandLine("serve --port={port} --url http://127.0.0.1:{port}/");
    expect(mentionsPort(argv)).toBe(true);
    expect(withPort(argv, 8123)).toMatchObject({
      argv: ["serve", "--port=8123", "--url", "http://127.0.0.1:8123/"],
    });
    const shell = parseCommandLine("cd x && serve --port {port}");
    expect(withPort(shell, 9)).toMatchObject({ command: "cd x && serve --port 9" });
    expect(mentionsPort(parseCommandLine("python app.py"))).toBe(false);
  });

  it("shows a command as one could type it", () => {
    expect(showCommand(parseCommandLine(`X='a b' node "my server.js" --port {port}`))).toBe(
      "X='a b' node 'my server.js' --port {port}",
    );
  });

  it("names a server after the script it runs", () => {
    const name = (c: string) => nameFromCommand(parseCommandLine(c));
    expect(name("python my_env.py --port {port}")).toBe("my_env");
    expect(name("python3 ./envs/Word Game.py")).toBe("game");
    expect(name("python3 './envs/Word Game.py'")).toBe("word-game");
    expect(name("uv run python -m pkg.server --port {port}")).toBe("server");
    expect(name("node --import tsx tests/fixtures/reference-server/main.ts --port {port}")).toBe("main");
    expect(name("./my-server --port {port}")).toBe("my-server");
    expect(name("cd srv && python app.py --port {port}")).toBe("app");
  });
});
