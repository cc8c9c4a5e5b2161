"use client";
// A trajectory page's header: the environment and task with the end reason and the golden mark,
// where and when it ran (its run, what it was forked or replayed from), the actions that open,
// restart or export it, and why it ended when it says so.
import { FileCode, Play, Radio, RotateCcw, Star } from "lucide-react";
import Link from "next/link";
import { AgentEndNote } from "@/components/episode/model-step-note";
import { PageHeader } from "@/components/layout/page-header";
import { RunTagLink } from "@/components/runs/run-tag-link";
import { Badge } from "@/components/ui/badge";
import { Button, buttonClasses } from "@/components/ui/button";
import { episodeHref, liveHref, trajectoriesHref, trajectoryHref } from "@/lib/routes";
import { taskLabel } from "@/lib/trajectory/model";
import type { Trajectory } from "@/lib/trajectory/schema";
import { downloadUrl, htmlExportUrl, playwrightUrl, restartHref } from "@/lib/ui/trajectory-queries";
import { END_REASON_LABEL, endReasonTone, fmtMs, fmtTime } from "./format";
import { HtmlExportLink } from "./html-export-button";
import { GoldenToggle } from "./trajectory-operations";

function Title({ t, golden }: { t: Trajectory; golden: boolean }) {
  const running = t.end_reason == null;
  return (
    <span className="flex items-center gap-2">
      {t.env ?? "unknown environment"} · {taskLabel(t.task)}
      <Badge
        tone={endReasonTone(t.end_reason)}
        aria-label={`End reason: ${END_REASON_LABEL[t.end_reason ?? "running"]}`}
      >
        {running && <Radio aria-hidden="true" className="size-3 animate-pulse" />}
        {END_REASON_LABEL[t.end_reason ?? "running"]}
      </Badge>
      {golden && (
        <Badge tone="amber">
          <Star aria-hidden="true" className="size-3 fill-current" />
          Golden
        </Badge>
      )}
    </span>
  );
}

function Description({ t, feed }: { t: Trajectory; feed: string }) {
  return (
    <>
      server <span className="font-mono">{t.server}</span> · session{" "}
      <span className="font-mono">{t.sid ?? "—"}</span> · started {fmtTime(t.started_at)}
      {t.ended_at != null && ` · ran ${fmtMs(t.ended_at - t.started_at)}`}
      {t.end_reason == null && feed === "live" && " · watching live"}
      {t.client && ` · played by ${t.client.name} ${t.client.version}`}
      {t.run && (
        <>
          {" "}
          · <RunTagLink run={t.run} />
        </>
      )}
      {t.origin?.from && (
        <>
          {" "}
          · {t.origin.kind} of{" "}
          <Link className="underline" href={trajectoryHref(t.origin.from)}>
            {t.origin.from}
          </Link>
          {t.origin.step != null && ` at step ${t.origin.step}`}
        </>
      )}
    </>
  );
}

function Actions({ t, golden }: { t: Trajectory; golden: boolean }) {
  const restart = restartHref(t);
  const testable = t.env != null && t.task != null;
  return (
    <>
      {t.end_reason == null && t.env && t.sid && (
        <Link className={buttonClasses("primary", "sm")} href={episodeHref(t.server, t.env, t.sid)}>
          <Play aria-hidden="true" /> Open episode
        </Link>
      )}
      {restart && (
        <Link className={buttonClasses("secondary", "sm")} href={restart}>
          <RotateCcw aria-hidden="true" /> Restart on the same task
        </Link>
      )}
      <GoldenToggle t={t} golden={golden} />
      <a className={buttonClasses("secondary", "sm")} href={downloadUrl(t.id)} download>
        Export JSON
      </a>
      <HtmlExportLink href={htmlExportUrl(t.id)} what="This episode" />
      {testable ? (
        <a
          className={buttonClasses("secondary", "sm")}
          href={playwrightUrl(t.id)}
          download
          title="A Playwright spec that drives the playground through the same steps and checks the recorded rewards"
        >
          <FileCode aria-hidden="true" /> Export as Playwright test
        </a>
      ) : (
        <Button size="sm" disabled title="Needs a known environment and task">
          <FileCode aria-hidden="true" /> Export as Playwright test
        </Button>
      )}
    </>
  );
}

export function TrajectoryHeader({ t, feed, golden }: { t: Trajectory; feed: string; golden: boolean }) {
  const running = t.end_reason == null;
  return (
    <>
      <PageHeader
        crumbs={[
          { href: running ? liveHref() : trajectoriesHref(), label: running ? "Live" : "Trajectories" },
          { label: t.id },
        ]}
        title={<Title t={t} golden={golden} />}
        description={<Description t={t} feed={feed} />}
        actions={<Actions t={t} golden={golden} />}
      />
      {t.error && (
        <p
          role="status"
          className="mb-3 rounded-md bg-amber-50 p-2 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200"
        >
          {END_REASON_LABEL[t.end_reason ?? "running"]}: {t.error}
        </p>
      )}
      {t.agent_end && (
        <div className="mb-3">
          <AgentEndNote end={t.agent_end} />
        </div>
      )}
    </>
  );
}
