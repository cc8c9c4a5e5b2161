// The prompts of a run as a Parquet file (docs/runs.md "Exports"), written by a kept Parquet writer
// (hyparquet-writer): one row per task, columns as RL trainers such as veRL read them —
// `data_source` (string), `prompt` (a list of {role, content}), `reward_model` ({style,
// ground_truth}), `extra_info` (a struct: server, env, split, index, run_id, p, signal).
import "server-only";
import { parquetWriteBuffer } from "hyparquet-writer";
import type { PromptRow } from "./trainer-exports";

const text = (name: string, optional = false) => ({
  name,
  type: "BYTE_ARRAY" as const,
  converted_type: "UTF8" as const,
  repetition_type: optional ? ("OPTIONAL" as const) : ("REQUIRED" as const),
});

/** The file's schema: the four columns, nested as a trainer's reader (pyarrow) reads them. */
const SCHEMA = [
  { name: "root", num_children: 4 },
  text("data_source"),
  { name: "prompt", repetition_type: "REQUIRED" as const, converted_type: "LIST" as const, num_children: 1 },
  { name: "list", repetition_type: "REPEATED" as const, num_children: 1 },
  { name: "element", repetition_type: "REQUIRED" as const, num_children: 2 },
  text("role"),
  text("content"),
  { name: "reward_model", repetition_type: "REQUIRED" as const, num_children: 2 },
  text("style"),
  text("ground_truth"),
  { name: "extra_info", repetition_type: "REQUIRED" as const, num_children: 7 },
  text("server"),
  text("env"),
  text("split"),
  { name: "index", type: "INT64" as const, repetition_type: "REQUIRED" as const },
  text("run_id"),
  { name: "p", type: "DOUBLE" as const, repetition_type: "OPTIONAL" as const },
  { name: "signal", type: "DOUBLE" as const, repetition_type: "OPTIONAL" as const },
];

/** The rows as one Parquet file. */
export function promptsParquet(rows: readonly PromptRow[]): Uint8Array<ArrayBuffer> {
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: "data_source", data: rows.map((r) => r.data_source) },
      { name: "prompt", data: rows.map((r) => r.prompt) },
      { name: "reward_model", data: rows.map((r) => r.reward_model) },
      {
        name: "extra_info",
        data: rows.map((r) => ({ ...r.extra_info, index: BigInt(r.extra_info.index) })),
      },
    ],
    schema: SCHEMA,
    createdBy: "ors-playground",
  });
  return new Uint8Array(buffer);
}
