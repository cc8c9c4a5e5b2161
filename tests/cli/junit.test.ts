// JUnit XML: counts per suite and in total, a case per outcome, and text escaped for XML 1.0 (no
// control characters, no ANSI colours, quotes and line ends kept in attributes).
import { describe, expect, it } from "vitest";
import { junitXml, xmlEscape } from "@/lib/cli/junit";

describe("junitXml", () => {
  it("writes suites and cases with their counts and outcomes", () => {
    const xml = junitXml("ORS golden episodes", [
      {
        name: "a.jsonl",
        timestamp: Date.UTC(2025, 0, 2, 3, 4, 5, 678),
        cases: [
          { classname: "golden.local.math", name: "p1", time: 0.25 },
          {
            classname: "golden.local.math",
            name: "f1",
            time: 1,
            failure: { message: "1 step differs", type: "difference", text: "step 1\n  reward: 1 → 0" },
          },
        ],
      },
      {
        name: "b.jsonl",
        timestamp: 0,
        cases: [
          {
            classname: "golden.py.farm",
            name: "e1",
            time: 0.0004,
            error: { message: "unreachable: refused", type: "unreachable" },
          },
          { classname: "golden.py.farm", name: "s1", time: 0, skipped: { message: "not run" } },
        ],
      },
      { name: "empty.jsonl", timestamp: 0, cases: [] },
    ]);
    expect(xml).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="ORS golden episodes" tests="4" failures="1" errors="1" skipped="1" time="1.250">',
        '  <testsuite name="a.jsonl" tests="2" failures="1" errors="0" skipped="0" time="1.250" timestamp="2025-01-02T03:04:05">',
        '    <testcase classname="golden.local.math" name="p1" time="0.250"/>',
        '    <testcase classname="golden.local.math" name="f1" time="1.000">',
        '      <failure message="1 step differs" type="difference">step 1\n  reward: 1 → 0</failure>',
        "    </testcase>",
        "  </testsuite>",
        '  <testsuite name="b.jsonl" tests="2" failures="0" errors="1" skipped="1" time="0.000" timestamp="1970-01-01T00:00:00">',
        '    <testcase classname="golden.py.farm" name="e1" time="0.000">',
        '      <error message="unreachable: refused" type="unreachable"/>',
        "    </testcase>",
        '    <testcase classname="golden.py.farm" name="s1" time="0.000">',
        '      <skipped message="not run"/>',
        "    </testcase>",
        "  </testsuite>",
        '  <testsuite name="empty.jsonl" tests="0" failures="0" errors="0" skipped="0" time="0.000" timestamp="1970-01-01T00:00:00"/>',
        "</testsuites>",
        "",
      ].join("\n"),
    );
  });

  it("escapes text for XML 1.0", () => {
    expect(xmlEscape(`a < b && c > "d" 'e'`)).toBe(`a &lt; b &amp;&amp; c &gt; "d" 'e'`);
    expect(xmlEscape('say "hi"\n\tnow', true)).toBe("say &quot;hi&quot;&#10;&#9;now");
    // Control characters XML cannot carry, and lone surrogates, become U+FFFD; colours are dropped.
    expect(xmlEscape("bell\u0007 nul\u0000 \ud800 ok \ud83d\ude00")).toBe(
      "bell\ufffd nul\ufffd \ufffd ok 😀",
    );
    expect(xmlEscape("\u001b[31mred\u001b[39m")).toBe("red");
  });
});
