"use client";

// The "Check this server" page: options (the environment quality checks among them), Run/Stop,
// progress as results stream in, the quality checks' results with links to their episodes, the
// protocol results grouped by outcome with their spec sections, the summary, and Download JSON.
import { Download, Play, Square } from "lucide-react";
import { type FormEvent, useEffect, useId, useState } from "react";
import { parseJsonObject } from "@/components/schema-form/json-text";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { formatMs, summaryLine, verdictOf } from "@/lib/conformance/labels";
import type { ConformanceReport } from "@/lib/conformance/types";
import { cn } from "@/lib/ui/cn";
import { useEnvironments, useServerInfo } from "@/lib/ui/queries";
import { CheckResults } from "./check-results";
import {
  Field,
  NO_QUALITY,
  parseQualityOptions,
  type QualityErrors,
  QualityOptions,
} from "./quality-options";
import { QualityResults } from "./quality-results";
import { type CheckRequest, useConformanceCheck } from "./use-conformance-check";

interface OptionsText {
  env: string;
  task: string;
  tool: string;
  input: string;
  idle: string;
}

type Parsed =
  | { ok: true; request: CheckRequest }
  | { ok: false; errors: Partial<Record<keyof OptionsText, string>> };

function parseOptions(o: OptionsText): Parsed {
  const errors: Partial<Record<keyof OptionsText, string>> = {};
  const request: CheckRequest = {};
  if (o.env.trim()) request.env = o.env.trim();
  if (o.task.trim()) {
    if (/^.+:\d+$/.test(o.task.trim())) request.task = o.task.trim();
    else errors.task = "Write it as split:index, e.g. train:0";
  }
  if (o.tool.trim()) request.tool = o.tool.trim();
  if (o.input.trim()) {
    const parsed = parseJsonObject(o.input);
    if (!parsed.ok) errors.input = parsed.message;
    else if (!request.tool) errors.input = "Name the tool this input is for";
    else request.input = parsed.value;
  }
  if (o.idle.trim()) {
    const n = Number(o.idle.trim());
    if (Number.isInteger(n) && n > 0 && n <= 30 * 60_000) request.idleTimeoutMs = n;
    else errors.idle = "Milliseconds, more than 0 and at most 1,800,000 (30 minutes)";
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, request };
}

/** `clean` → `Clean.` */
function sentence(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
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
  const id = useId();
  const { state, run, stop } = useConformanceCheck(server);
  const info = useServerInfo(server);
  const envs = useEnvironments(server);
  const [text, setText] = useState<OptionsText>({ env: "", task: "", tool: "", input: "", idle: "" });
  const [errors, setErrors] = useState<Partial<Record<keyof OptionsText, string>>>({});
  const [quality, setQuality] = useState(NO_QUALITY);
  const [qualityErrors, setQualityErrors] = useState<QualityErrors>({});
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);

  const running = state.status === "running";
  const total = state.checks.length;
  const done = state.results.length;
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

  const set = (key: keyof OptionsText) => (e: { target: { value: string } }) =>
    setText((t) => ({ ...t, [key]: e.target.value }));
  const fieldProps = (key: keyof OptionsText) => ({
    id: `${id}-${key}`,
    value: text[key],
    onChange: set(key),
    disabled: running,
    "aria-invalid": errors[key] ? true : undefined,
    "aria-describedby": `${id}-${key}-hint${errors[key] ? ` ${id}-${key}-error` : ""}`,
  });
  const cliUrl = info?.source === "builtin" ? origin : info?.url;
  const cliCommand = `npx ors-playground check ${cliUrl}${quality.on ? ` --quality${text.env.trim() ? ` --env ${text.env.trim()}` : ""}${quality.split.trim() ? ` --split ${quality.split.trim()}` : ""}${quality.tasks.trim() ? ` --tasks ${quality.tasks.trim()}` : ""}${quality.oracle.trim() ? ` --oracle ${quality.oracle.trim()}` : ""}` : ""}`;

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
            <details className="rounded-md border border-zinc-200 dark:border-zinc-800">
              <summary className="cursor-pointer px-3 py-1.5 text-sm font-medium text-zinc-800 dark:text-zinc-200">
                Options
              </summary>
              <div className="grid gap-3 p-3 sm:grid-cols-2">
                <Field
                  id={`${id}-env`}
                  label="Environment"
                  hint="Default: the first with tasks."
                  error={errors.env}
                >
                  <Input
                    {...fieldProps("env")}
                    list={`${id}-envs`}
                    placeholder="automatic"
                    autoComplete="off"
                  />
                  <datalist id={`${id}-envs`}>
                    {envs.data?.map((e) => (
                      <option key={e} value={e} />
                    ))}
                  </datalist>
                </Field>
                <Field
                  id={`${id}-task`}
                  label="Task"
                  hint="split:index. Default: task 0 of the first split."
                  error={errors.task}
                >
                  <Input {...fieldProps("task")} placeholder="train:0" autoComplete="off" />
                </Field>
                <Field
                  id={`${id}-tool`}
                  label="Tool"
                  hint="For the call checks. Default: chosen from the input schemas."
                  error={errors.tool}
                >
                  <Input {...fieldProps("tool")} placeholder="automatic" autoComplete="off" />
                </Field>
                <Field
                  id={`${id}-idle`}
                  label="Idle timeout (ms)"
                  hint="The server's idle limit: checks an idle session is gone after it. Empty: not checked."
                  error={errors.idle}
                >
                  <Input
                    {...fieldProps("idle")}
                    inputMode="numeric"
                    placeholder="not checked"
                    autoComplete="off"
                  />
                </Field>
                <div className="sm:col-span-2">
                  <Field
                    id={`${id}-input`}
                    label="Tool input (JSON)"
                    hint="Default: made up from the tool's schema."
                    error={errors.input}
                  >
                    <textarea
                      {...fieldProps("input")}
                      rows={3}
                      spellCheck={false}
                      placeholder='{"answer": "4"}'
                      className="w-full rounded-md border border-zinc-300 bg-white p-2 font-mono text-[13px] text-zinc-900 shadow-xs aria-[invalid=true]:border-red-500 disabled:opacity-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100"
                    />
                  </Field>
                </div>
              </div>
            </details>
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
                    {cliCommand}
                  </code>
                  <CopyButton text={cliCommand} label="Copy command" />
                </span>
              )}
            </div>
          </form>
        </CardBody>
      </Card>

      {state.status !== "idle" && (
        <div className="space-y-2">
          <div
            role="progressbar"
            aria-label="Checks done"
            aria-valuemin={0}
            aria-valuemax={total || 1}
            aria-valuenow={done}
            aria-valuetext={total ? `${done} of ${total} checks` : "starting"}
            className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
          >
            <div
              className={cn(
                "h-full rounded-full transition-[width]",
                state.status === "failed" ? "bg-red-500" : "bg-indigo-500",
              )}
              style={{ width: `${total ? Math.round((done / total) * 100) : 0}%` }}
            />
          </div>
          <p role="status" className="text-sm text-zinc-700 dark:text-zinc-300">
            {state.status === "running" &&
              (state.quality
                ? `Checking the environment's quality: ${state.quality.phase}${state.quality.total ? ` (${state.quality.done} of ${state.quality.total} episodes)` : ""}…`
                : total
                  ? `Running: ${done} of ${total} checks done…`
                  : "Starting…")}
            {state.status === "stopped" && `Stopped after ${done} of ${total} checks.`}
            {state.status === "failed" && (
              <span className="text-red-700 dark:text-red-400">The check could not run: {state.error}</span>
            )}
            {state.status === "done" && report && (
              <>
                <span className="font-medium">{sentence(verdictOf(report).text)}</span>{" "}
                {summaryLine(report.summary.counts)} ({report.summary.total} checks in{" "}
                {formatMs(report.durationMs)}).
              </>
            )}
          </p>
          {report?.target.environment && (
            <p className="flex flex-wrap gap-1.5 text-xs text-zinc-500 dark:text-zinc-400">
              Checked on <Badge className="font-mono">{report.target.environment}</Badge>
              {report.target.task && (
                <Badge className="font-mono">
                  {report.target.task.split}:{report.target.task.index}
                </Badge>
              )}
              {report.target.tool && (
                <Badge className="font-mono">
                  {report.target.tool.name} {JSON.stringify(report.target.tool.input)}
                </Badge>
              )}
            </p>
          )}
        </div>
      )}

      {state.status === "running" && state.quality && state.quality.total > 0 && (
        <div
          role="progressbar"
          aria-label="Quality episodes played"
          aria-valuemin={0}
          aria-valuemax={state.quality.total}
          aria-valuenow={state.quality.done}
          aria-valuetext={`${state.quality.phase}: ${state.quality.done} of ${state.quality.total} episodes`}
          className="h-1.5 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
        >
          <div
            className="h-full rounded-full bg-emerald-500 transition-[width]"
            style={{ width: `${Math.round((state.quality.done / state.quality.total) * 100)}%` }}
          />
        </div>
      )}

      {report?.quality && <QualityResults quality={report.quality} />}

      <CheckResults
        results={state.results}
        framework={report?.framework ?? null}
        strict={report?.policy.strict ?? false}
      />
    </div>
  );
}
