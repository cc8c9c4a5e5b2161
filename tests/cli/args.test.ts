// Flag parsing of every command (lib/cli/args.ts, on node:util's parseArgs): both forms of a value,
// aliases short and long, repeatable flags, the `--` terminator, and each mistake refused as a
// UsageError with its message (the commands print it and exit 2).
import { describe, expect, it } from "vitest";
import { type FlagSpec, parseArgs, UsageError } from "@/lib/cli/args";

const SPEC: FlagSpec = {
  values: ["--port", "--host", "--env", "--server"],
  booleans: ["--json", "--help"],
  aliases: { "-p": "--port", "-H": "--host", "--hostname": "--host", "-h": "--help" },
  repeatable: ["--server"],
};

const parse = (...argv: string[]) => parseArgs(argv, SPEC);

function refusal(argv: string[]): string {
  try {
    parseArgs(argv, SPEC);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`${JSON.stringify(argv)} was accepted`);
}

describe("parseArgs", () => {
  it("reads values both ways, booleans, aliases, repeatable flags and positionals in order", () => {
    const args = parse(
      "a",
      "--port",
      "4000",
      "--env=./envs.ts",
      "-h",
      "--hostname=::1",
      "--server",
      "x=http://h:1",
      "--server=y=http://h:2",
      "--json",
      "--json",
      "b",
    );
    expect(args.positionals).toEqual(["a", "b"]);
    expect(Object.fromEntries(args.values)).toEqual({
      "--port": "4000",
      "--env": "./envs.ts",
      "--host": "::1",
    });
    expect([...args.booleans].sort()).toEqual(["--help", "--json"]);
    expect(args.lists.get("--server")).toEqual(["x=http://h:1", "y=http://h:2"]);
  });

  it("takes the next argument as the value even when it starts with a dash, and empty values", () => {
    expect(parse("--env", "-x").values.get("--env")).toBe("-x");
    expect(parse("--env", "--").values.get("--env")).toBe("--");
    expect(parse("--env=").values.get("--env")).toBe("");
    expect(parse("-p=4000", "-H", "h").values).toEqual(
      new Map([
        ["--port", "4000"],
        ["--host", "h"],
      ]),
    );
  });

  it("`--` ends the flags, and a lone `-` is a positional", () => {
    const args = parse("-", "--", "--json", "-p");
    expect(args.positionals).toEqual(["-", "--json", "-p"]);
    expect(args.booleans.size).toBe(0);
  });

  it.each([
    [["--open"], "unknown option --open"],
    [["--open=1"], "unknown option --open"],
    [["-x"], "unknown option -x"],
    [["-5"], "unknown option -5"],
    [["-p4000"], "unknown option -p4000"],
    [["-hp", "1"], "unknown option -hp"],
    [["--port"], "--port needs a value"],
    [["-p"], "--port needs a value"],
    [["--json=yes"], "--json takes no value"],
    [["-h=1"], "--help takes no value"],
    [["--port", "1", "--port=2"], "--port is given twice"],
    [["--host", "a", "--hostname", "b"], "--host is given twice"],
  ])("refuses %j: %s", (argv, message) => {
    expect(refusal(argv)).toBe(message);
  });

  it("reports the first mistake from the left", () => {
    expect(refusal(["--json=1", "--open"])).toBe("--json takes no value");
  });
});
