"use client";
// Import trajectories: a file picker and a drop zone for JSON or JSONL. The server validates
// everything first and imports all or nothing; errors name the line.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Upload } from "lucide-react";
import { useId, useState } from "react";
import { ApiError } from "@/lib/ui/api-error";
import { cn } from "@/lib/ui/cn";
import { importTrajectoriesRequest, trajectoryKeys } from "@/lib/ui/trajectory-queries";

export function ImportPanel() {
  const qc = useQueryClient();
  const inputId = useId();
  const [over, setOver] = useState(false);
  const [fileName, setFileName] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: (text: string) => importTrajectoriesRequest(text),
    onSuccess: () => void qc.invalidateQueries({ queryKey: trajectoryKeys.all }),
  });
  const take = async (file: File | undefined) => {
    if (!file) return;
    setFileName(file.name);
    m.mutate(await file.text());
  };
  const err = m.error instanceof ApiError ? m.error : null;
  return (
    <section
      aria-label="Import trajectories"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void take(e.dataTransfer.files[0]);
      }}
      className={cn(
        "rounded-lg border border-dashed border-zinc-300 p-3 text-xs dark:border-zinc-700",
        over && "border-indigo-500 bg-indigo-50 dark:bg-indigo-950",
      )}
    >
      <div className="flex flex-wrap items-center gap-2">
        <Upload aria-hidden="true" className="size-4 text-zinc-500" />
        <label htmlFor={inputId} className="font-medium">
          Import trajectories (JSON or JSONL)
        </label>
        <input
          id={inputId}
          type="file"
          accept=".json,.jsonl,.ndjson,application/json,application/x-ndjson"
          className="text-xs file:mr-2 file:rounded file:border file:border-zinc-300 file:bg-white file:px-2 file:py-1 dark:file:border-zinc-700 dark:file:bg-zinc-900"
          onChange={(e) => {
            void take(e.target.files?.[0]);
            e.target.value = "";
          }}
        />
        <span className="text-zinc-500">or drop a file here</span>
      </div>
      {m.isPending && <p role="status">Importing {fileName}…</p>}
      {m.data && (
        <p role="status" className="mt-2 text-emerald-700 dark:text-emerald-400">
          Imported {m.data.imported.length} trajector{m.data.imported.length === 1 ? "y" : "ies"}
          {m.data.skipped.length > 0 && `; skipped ${m.data.skipped.length} already present`} from {fileName}.
        </p>
      )}
      {m.error && (
        <div
          role="alert"
          className="mt-2 rounded bg-red-50 p-2 text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          <p className="font-semibold">
            Nothing was imported from {fileName}:{" "}
            {err?.errors.length ? `${err.errors.length} problem(s)` : m.error.message}
          </p>
          {err && err.errors.length > 0 && (
            <ul className="mt-1 list-disc pl-4 font-mono">
              {err.errors.map((e, i) => (
                <li key={i}>{e}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
