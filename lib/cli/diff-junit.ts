// The diff's report as JUnit XML (`diff --junit FILE`): a suite of the surface, one testcase per
// change (a breaking one fails, the others pass with their text), and with --replay a suite of the
// scores, one testcase per flipped task (failing when there are more than --max-flips), so the CI
// view agrees with the exit code. Parts that could not be read are errors.
import { behaviourLine, type DiffReport, flipLine, sideLabel } from "@/lib/conformance/diff/report";
import { type JUnitCase, junitXml } from "./junit";

function surfaceCases(r: DiffReport): JUnitCase[] {
  const cases: JUnitCase[] = r.unread.map((u) => ({
    classname: `diff.unread.${u.side}`,
    name: u.env,
    time: 0,
    error: { message: u.error, type: "unread" },
  }));
  for (const c of r.changes) {
    const kase: JUnitCase = { classname: `diff.${c.env}.${c.class}`, name: `${c.kind} ${c.path}`, time: 0 };
    const text = [
      c.message,
      ...(c.before !== undefined ? [`before: ${JSON.stringify(c.before)}`] : []),
      ...(c.after !== undefined ? [`after: ${JSON.stringify(c.after)}`] : []),
    ].join("\n");
    if (c.class === "breaking") kase.failure = { message: c.message, type: "breaking", text };
    else kase.systemOut = `${c.class}: ${text}`;
    cases.push(kase);
  }
  if (!cases.length)
    cases.push({ classname: "diff", name: "surface", time: 0, systemOut: "no surface change" });
  return cases;
}

function scoreCases(r: DiffReport): JUnitCase[] {
  const b = r.behaviour!;
  const tooMany = b.gained.length + b.lost.length > r.options.maxFlips;
  const cases: JUnitCase[] = [];
  if (b.error)
    cases.push({
      classname: "diff.scores",
      name: "replay",
      time: 0,
      error: { message: b.error, type: "replay" },
    });
  for (const f of b.flips) {
    const kase: JUnitCase = { classname: `diff.scores.${f.direction}`, name: `task ${f.task}`, time: 0 };
    if (tooMany) kase.failure = { message: flipLine(f), type: "flip", text: flipLine(f) };
    else kase.systemOut = `${flipLine(f)} (within --max-flips ${r.options.maxFlips})`;
    cases.push(kase);
  }
  if (!cases.length)
    cases.push({ classname: "diff.scores", name: "flips", time: 0, systemOut: behaviourLine(b) });
  return cases;
}

export function diffJUnit(r: DiffReport): string {
  const at = Date.parse(r.startedAt);
  return junitXml("ORS diff", [
    {
      name: `ORS surface diff: ${sideLabel(r.a)} → ${sideLabel(r.b)}`,
      timestamp: at,
      cases: surfaceCases(r),
    },
    ...(r.behaviour
      ? [{ name: `ORS score diff: ${behaviourLine(r.behaviour)}`, timestamp: at, cases: scoreCases(r) }]
      : []),
  ]);
}
