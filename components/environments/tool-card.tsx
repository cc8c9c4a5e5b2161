"use client";

// One tool: name, description (a Python docstring reflowed), and its input schema as a readable
// field list or as raw JSON (exactly as the server sent it).
import { useState } from "react";
import { reflow } from "@/components/schema-form/schema-utils";
import { Card } from "@/components/ui/card";
import { CodeBlock } from "@/components/ui/code-block";
import type { ToolSpec } from "@/lib/ors/protocol";
import { cn } from "@/lib/ui/cn";
import { SchemaView } from "./schema-view";

export function ToolCard({ tool }: { tool: ToolSpec }) {
  const [view, setView] = useState<"fields" | "json">("fields");
  const headingId = `tool-${tool.name}`;
  return (
    <Card id={headingId} className="scroll-mt-16">
      <section aria-labelledby={`${headingId}-h`}>
        <div className="flex items-start justify-between gap-3 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
          <div className="min-w-0">
            <h3
              id={`${headingId}-h`}
              className="font-mono text-sm font-semibold text-zinc-900 dark:text-zinc-50"
            >
              {tool.name}
            </h3>
            {tool.description ? (
              <p className="mt-0.5 whitespace-pre-wrap text-xs text-zinc-600 dark:text-zinc-400">
                {reflow(tool.description)}
              </p>
            ) : (
              <p className="mt-0.5 text-xs italic text-zinc-500">No description.</p>
            )}
          </div>
          <fieldset className="flex shrink-0 rounded-md border border-zinc-200 p-0.5 text-[11px] dark:border-zinc-800">
            <legend className="sr-only">Input schema of {tool.name} as</legend>
            {(["fields", "json"] as const).map((v) => (
              <button
                key={v}
                type="button"
                aria-pressed={view === v}
                onClick={() => setView(v)}
                className={cn(
                  "rounded px-2 py-0.5 font-medium text-zinc-500 hover:text-zinc-900 dark:hover:text-zinc-100",
                  view === v && "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100",
                )}
              >
                {v === "fields" ? "Fields" : "JSON"}
              </button>
            ))}
          </fieldset>
        </div>
        <div className="px-3 py-2">
          {view === "fields" ? (
            <SchemaView schema={tool.input_schema} />
          ) : (
            <CodeBlock
              label={`${tool.name} input schema`}
              code={JSON.stringify(tool.input_schema ?? null, null, 2)}
            />
          )}
        </div>
      </section>
    </Card>
  );
}
