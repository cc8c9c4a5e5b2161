"use client";
// The model endpoints the app may call (PLAYGROUND_MODELS): name, base URL, and whether a key is
// configured — the key itself never reaches the browser (docs/runs.md "Model endpoints").
import { KeyRound } from "lucide-react";
import { SectionCard } from "@/components/ui/card";
import { ErrorPanel } from "@/components/ui/error-panel";
import { SkeletonBlock } from "@/components/ui/skeleton";
import { useModels } from "@/lib/ui/run-queries";

export function ModelsPanel() {
  const models = useModels();
  return (
    <SectionCard
      title="Model endpoints"
      titleId="models-heading"
      bodyClassName="space-y-2"
      aside={<span className="text-xs text-zinc-500">PLAYGROUND_MODELS</span>}
    >
      <p className="text-xs text-zinc-500">
        OpenAI-compatible Chat Completions endpoints a run or the episode page may call. Keys stay on the
        server.
      </p>
      {models.isPending ? (
        <SkeletonBlock label="Loading model endpoints" lines={2} />
      ) : models.isError ? (
        <ErrorPanel compact error={models.error} onRetry={() => void models.refetch()} />
      ) : models.data.length === 0 ? (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          None configured. Start the playground with{" "}
          <code className="font-mono">PLAYGROUND_MODELS=name=http://127.0.0.1:8000/v1</code> (and the key in{" "}
          <code className="font-mono">PLAYGROUND_MODEL_API_KEY_NAME</code>) to run a model.
        </p>
      ) : (
        <table aria-labelledby="models-heading" className="w-full text-left text-xs">
          <thead className="text-zinc-500">
            <tr>
              <th className="py-1 pr-3 font-medium">Name</th>
              <th className="py-1 pr-3 font-medium">Base URL</th>
              <th className="py-1 font-medium">API key</th>
            </tr>
          </thead>
          <tbody>
            {models.data.map((m) => (
              <tr key={m.name} className="border-t border-zinc-100 dark:border-zinc-800">
                <td className="py-1 pr-3 font-mono font-medium">{m.name}</td>
                <td className="max-w-[16rem] truncate py-1 pr-3 font-mono" title={m.baseUrl}>
                  {m.baseUrl}
                </td>
                <td className="py-1">
                  {m.hasApiKey ? (
                    <span className="inline-flex items-center gap-1 text-emerald-700 dark:text-emerald-400">
                      <KeyRound aria-hidden="true" className="size-3" /> set
                    </span>
                  ) : (
                    <span className="text-zinc-500">none</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </SectionCard>
  );
}
