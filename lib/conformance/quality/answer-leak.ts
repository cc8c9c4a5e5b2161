// `answer-leak` (docs/check.md "Environment quality"): a task field named answer, solution, target,
// label or ground_truth (or an obvious variant: `correct_answer`, `groundTruth`, `labels` ...) whose
// value appears in the prompt. Isomorphic. Told apart from what is not a leak:
// - a choice list: the value is one of the task's own listed choices (an array under another
//   field), or the prompt also holds most other tasks' values of that field (`A) ... B) ...`);
// - a constant: every sampled task has the same value (a category, not an answer);
// - a coincidence: a short value (under 4 characters, `7`) counts only when the field is in the
//   prompt on at least half of the tasks that have it.
import type { JsonObject } from "@/lib/ors/protocol";
import type { QualityData } from "./played";
import { brief, promptText } from "./played";
import { type QualityEvidence, trajectoryRef } from "./types";

const ANSWER_WORDS = new Set([
  "answer",
  "answers",
  "solution",
  "solutions",
  "target",
  "targets",
  "label",
  "labels",
  "groundtruth",
]);

/** Values this long or longer count on one task; shorter ones only on half the tasks. */
export const STRONG_LEAK_CHARS = 4;

/** A key's words: `groundTruth` → ground, truth; `correct_answer` → correct, answer. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter(Boolean);
}

/** Whether a task field's name says it holds the answer. */
export function isAnswerKey(key: string): boolean {
  const words = keyWords(key);
  if (words.length === 1 && words[0] === "gt") return true;
  if (words.some((w) => ANSWER_WORDS.has(w))) return true;
  return words.some((w, i) => w === "ground" && words[i + 1] === "truth");
}

/** Text as compared: NFKC, lower case, runs of whitespace as one space. */
export function normalize(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Where `needle` occurs in `haystack` as whole words (not inside a longer word or number), or -1. */
export function findWhole(haystack: string, needle: string): number {
  if (!needle) return -1;
  const startsWord = WORD_CHAR.test(needle[0]!);
  const endsWord = WORD_CHAR.test(needle[needle.length - 1]!);
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    const before = at > 0 ? haystack[at - 1]! : "";
    const after = haystack[at + needle.length] ?? "";
    if (startsWord && before && WORD_CHAR.test(before)) continue;
    if (endsWord && after && WORD_CHAR.test(after)) continue;
    return at;
  }
  return -1;
}

interface Candidate {
  /** The field's path, arrays as `[]` (`patients[].label`): values of one path are compared across tasks. */
  path: string;
  /** As written in the task (`answer`, `patients[2].label`). */
  at: string;
  value: string | number;
  norm: string;
}

/** The primitive values under answer-named fields, and every value listed in an array elsewhere (choices). */
function scan(task: JsonObject): { candidates: Candidate[]; choices: Set<string> } {
  const candidates: Candidate[] = [];
  const choices = new Set<string>();
  const walk = (v: unknown, path: string, at: string, answer: boolean, listed: boolean) => {
    if (typeof v === "string" || typeof v === "number") {
      const norm = normalize(String(v));
      if (!norm) return;
      if (answer) candidates.push({ path, at, value: v, norm });
      else if (listed) choices.add(norm);
      return;
    }
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, `${path}[]`, `${at}[${i}]`, answer, v.length >= 2);
      return;
    }
    if (v && typeof v === "object")
      for (const [k, child] of Object.entries(v)) {
        const sub = path ? `${path}.${k}` : k;
        walk(child, sub, at ? `${at}.${k}` : k, answer || isAnswerKey(k), false);
      }
  };
  walk(task, "", "", false, false);
  return { candidates, choices };
}

interface Leak {
  task: number;
  candidate: Candidate;
  /** The prompt around the value. */
  context: string;
}

/** A few words of `text` around `at`. */
function around(text: string, at: number, length: number): string {
  const from = Math.max(0, at - 30);
  const to = Math.min(text.length, at + length + 30);
  return `${from > 0 ? "…" : ""}${text.slice(from, to).replace(/\s+/g, " ")}${to < text.length ? "…" : ""}`;
}

export interface LeakAnalysis {
  /** Tasks whose object and prompt were both seen. */
  compared: number;
  /** Answer-named fields found in those tasks (paths). */
  fields: string[];
  /** The leaking fields with the tasks that show them (empty: no leak). */
  leaks: { path: string; tasks: number; of: number; evidence: QualityEvidence[] }[];
}

/** Finds answer-named task fields whose value is in the task's prompt. */
export function findAnswerLeaks(data: QualityData): LeakAnalysis {
  const prompts = new Map<number, { text: string; norm: string; trajectory: string | null }>();
  for (const e of [...data.random, ...data.randomReplay, ...(data.oracle ?? [])]) {
    if (prompts.has(e.task) || !e.trajectory?.prompt) continue;
    const text = promptText(e.trajectory);
    prompts.set(e.task, { text, norm: normalize(text), trajectory: e.trajectory.id });
  }
  const scanned = data.tasks
    .filter((t) => t.task && prompts.has(t.index))
    .map((t) => ({ index: t.index, ...scan(t.task!) }));
  const byPath = new Map<string, Map<number, Candidate[]>>();
  for (const s of scanned)
    for (const c of s.candidates) {
      const tasks = byPath.get(c.path) ?? new Map<number, Candidate[]>();
      byPath.set(c.path, tasks);
      tasks.set(s.index, [...(tasks.get(s.index) ?? []), c]);
    }

  const leaks: LeakAnalysis["leaks"] = [];
  for (const [path, tasks] of byPath) {
    const values = new Set([...tasks.values()].flatMap((cs) => cs.map((c) => c.norm)));
    // The same value on every task is a constant, not an answer.
    if (tasks.size >= 2 && values.size === 1) continue;
    const found: Leak[] = [];
    for (const [index, cs] of tasks) {
      const prompt = prompts.get(index)!;
      const choices = scanned.find((s) => s.index === index)!.choices;
      const own = new Set(cs.map((c) => c.norm));
      const others = [...values].filter((v) => !own.has(v));
      const othersIn = others.filter((v) => findWhole(prompt.norm, v) >= 0).length;
      // Most other tasks' values are in this prompt too: it lists the options.
      if (others.length && othersIn >= Math.ceil(others.length / 2)) continue;
      for (const c of cs) {
        if (choices.has(c.norm)) continue;
        const at = findWhole(prompt.norm, c.norm);
        if (at < 0) continue;
        found.push({ task: index, candidate: c, context: around(prompt.norm, at, c.norm.length) });
        break;
      }
    }
    if (!found.length) continue;
    const strong = found.filter((l) => l.candidate.norm.length >= STRONG_LEAK_CHARS);
    const share = found.length >= Math.ceil(tasks.size / 2);
    const shown = share ? found : strong;
    if (!shown.length) continue;
    leaks.push({
      path,
      tasks: shown.length,
      of: tasks.size,
      evidence: shown.map((l) => {
        const trajectory = prompts.get(l.task)!.trajectory;
        return {
          task: l.task,
          what: `${l.candidate.at} = ${brief(l.candidate.value, 60)} is in the prompt: "${l.context}"`,
          call: null,
          trajectory: trajectory ? trajectoryRef(trajectory) : null,
          other: null,
          compareHref: null,
        };
      }),
    });
  }
  return { compared: scanned.length, fields: [...byPath.keys()], leaks };
}
