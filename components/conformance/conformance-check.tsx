"use client";

// The "Check this server" page: options (the environment quality checks among them), Run/Stop,
// progress as results stream in, the quality checks' results with links to their episodes, the
// protocol results grouped by outcome with their spec sections, the summary, and Download JSON.
import { Download, Play, Square } from "lucide-react";
import { type FormEvent, useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { Card, CardBody } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import type { ConformanceReport } from "@/lib/conformance/types";
import { useServerInfo } from "@/lib/ui/queries";
import { CheckOptions, NO_OPTIONS, type OptionErrors, type OptionsText, parseOptions } from "./check-options";
import { CheckProgress } from "./check-progress";
import { CheckResults } from "./check-results";
import {
  NO_QUALITY,
  parseQualityOptions,
  type QualityErrors,
  QualityOptions,
  type QualityOptionsText,
} from "./quality-options";
import { QualityResults } from "./quality-results";
import { useConformanceCheck } from "./use-conformance-check";

/** The same check from a terminal. */
function cliCommand(url: string, text: OptionsText, quality: QualityOptionsText): string {
  const opt = (flag: string, value: string) => (value.trim() ? ` ${flag} ${value.trim()}` : "");
  const q = quality.on
    ? ` --quality${opt("--env", text.env)}${opt("--split", quality.split)}${opt("--tasks", quality.tasks)}${opt("--oracle", quality.oracle)}`
    : "";
  return `npx ors-playground check ${url}${q}`;
}

function download(report: ConformanceReport, server: string) {
  const blob = new Blob([`${JSON.stringify(report, null, 2)}\n`], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = `ors-check-${server}-${report.finishedAt.replace(/[:.]/g, "-")}.json`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

export function ConformanceCheck({ server }: { server: string }) {
  const { state, run, stop } = useConformanceCheck(server);
  const info = useServerInfo(server);
  const [text, setText] = useState<OptionsText>(NO_OPTIONS);
  const [errors, setErrors] = useState<OptionErrors>({});
  const [quality, setQuality] = useState(NO_QUALITY);
  const [qualityErrors, setQualityErrors] = useState<QualityErrors>({});
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);

  const running = state.status === "running";
  const report = state.report;

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseOptions(text);
    const q = parseQualityOptions(quality);
    setErrors(parsed.ok ? {} : parsed.errors);
    setQualityErrors(q.ok ? {} : q.errors);
    if (!parsed.ok || !q.ok) return;
    void run(q.quality ? { ...parsed.request, quality: q.quality } : parsed.request);
  };

  const cliUrl = info?.source === "builtin" ? origin : info?.url;

  return (
    <div className="space-y-4">
      <Card>
        <CardBody className="space-y-3">
          <p className="text-sm text-zinc-600 dark:text-zinc-300">
            Walks every endpoint and behaviour of the ORS specification against{" "}
            <span className="font-mono">{server}</span> and says, for each, whether it passes, differs from
            the spec, or breaks the reference Python client — and whose each finding is: the environment's, or
            the server framework's under it (the reference Python SDK's, say). It opens a few sessions (and
            deletes them), and calls tools with inputs made up from their schemas.
          </p>
          <form onSubmit={onSubmit} aria-label="Conformance check" className="space-y-3">
            <CheckOptions server={server} text={text} setText={setText} errors={errors} disabled={running} />
            <QualityOptions value={quality} onChange={setQuality} errors={qualityErrors} disabled={running} />
            <div className="flex flex-wrap items-center gap-2">
              {running ? (
                <Button variant="danger" onClick={stop}>
                  <Square aria-hidden="true" /> Stop
                </Button>
              ) : (
                <Button type="submit" variant="primary">
                  <Play aria-hidden="true" /> {state.status === "idle" ? "Run check" : "Run again"}
                </Button>
              )}
              {report && (
                <Button onClick={() => download(report, server)}>
                  <Download aria-hidden="true" /> Download JSON
                </Button>
              )}
              {cliUrl && (
                <span className="ml-auto inline-flex items-center gap-1 text-xs text-zinc-500 dark:text-zinc-400">
                  From a terminal:
                  <code className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-zinc-800 dark:bg-zinc-800 dark:text-zinc-200">
                    {cliCommand(cliUrl, text, quality)}
                  </code>
                  <CopyButton text={cliCommand(cliUrl, text, quality)} label="Copy command" />
                </span>
              )}
            </div>
          </form>
        </CardBody>
      </Card>

      <CheckProgress state={state} />

      {report?.quality && <QualityResults quality={report.quality} />}

      <CheckResults
        results={state.results}
        framework={report?.framework ?? null}
        strict={report?.policy.strict ?? false}
      />
    </div>
  );
}
