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
  // Quoted, `|`, `&&`, `$` and `*` are plain characters.
  it.each([
    ["python my_env.py --port {port}", ["python", "my_env.py", "--port", "{port}"], {}],
    [
      `node "my server.js"  --name 'it''s' a\\ b "x\\"y" ""`,
      ["node", "my server.js", "--name", "its", "a b", 'x"y', ""],
      {},
    ],
    [
      "  PYTHONPATH=. DEBUG='1 2' python -m pkg.server  ",
      ["python", "-m", "pkg.server"],
      { PYTHONPATH: ".", DEBUG: "1 2" },
    ],
    [`echo '|' "&&" '$HOME' "*"`, ["echo", "|", "&&", "$HOME", "*"], {}],
  ])("splits %j into words as a shell does", (line, argv, env) => {
    expect(parseCommandLine(line)).toEqual({ kind: "argv", argv, env });
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

  it.each([
    ["python my_env.py --port {port}", "my_env"],
    ["python3 ./envs/Word Game.py", "game"],
    ["python3 './envs/Word Game.py'", "word-game"],
    ["uv run python -m pkg.server --port {port}", "server"],
    ["node --import tsx tests/fixtures/reference-server/main.ts --port {port}", "main"],
    ["./my-server --port {port}", "my-server"],
    ["cd srv && python app.py --port {port}", "app"],
  ])("names the server of %j after the script it runs: %s", (command, name) => {
    expect(nameFromCommand(parseCommandLine(command))).toBe(name);
  });
});
