"use client";
// A share link's play page (/play/<token>): someone without the playground's access token gives
// their name, then plays the link's tasks one after another through the episode UI (the prompt,
// the tool forms, the streamed results) on the link's own API (lib/ui/api-base.ts); each episode
// is recorded in their run (policy `human`). Nothing here links to the rest of the playground.
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { PromptCard } from "@/components/episode/prompt-card";
import { RewardValue } from "@/components/episode/reward-value";
import { StepsSection } from "@/components/episode/step-list";
import { ToolPanel } from "@/components/episode/tool-panel";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader, CardTitle } from "@/components/ui/card";
import { Form } from "@/components/ui/form";
import { FieldError, Input, Label } from "@/components/ui/input";
import {
  EpisodeStoreProvider,
  selectEndReason,
  selectTotalReward,
  useEpisodeStore,
} from "@/lib/ui/episode-store";
import { type PlayerProgress, playApiBase, usePlayerMove } from "@/lib/ui/review-queries";
import { endHeadline, errorMessage, useEpisodeFeed, useKeepAlive } from "@/lib/ui/use-episode";
import { useToolCall } from "@/lib/ui/use-tool-call";

/** Where a player's name is kept between visits (this browser only). */
const nameKey = (token: string) => `ors-play-name:${token}`;

function JoinForm({ token, onJoined }: { token: string; onJoined: (p: PlayerProgress) => void }) {
  const join = usePlayerMove(token, "join");
  const [name, setName] = useState("");
  const id = useId();
  const { mutate } = join;
  const submit = useCallback(
    (player: string) =>
      mutate(player, {
        onSuccess: (p) => {
          localStorage.setItem(nameKey(token), p.player);
          onJoined(p);
        },
      }),
    [mutate, token, onJoined],
  );
  // A player coming back is recognised by the name they gave (once, on arrival).
  const returning = useRef(false);
  useEffect(() => {
    if (returning.current) return;
    returning.current = true;
    const known = localStorage.getItem(nameKey(token));
    if (known) submit(known);
  }, [token, submit]);
  return (
    <Form
      className="flex max-w-sm flex-col gap-2"
      onSubmit={() => {
        if (name.trim()) submit(name.trim());
      }}
    >
      <Label htmlFor={id}>Your name</Label>
      <Input
        id={id}
        value={name}
        onChange={(e) => setName(e.target.value)}
        autoComplete="nickname"
        maxLength={100}
        aria-describedby={`${id}-error`}
        aria-invalid={join.isError || undefined}
      />
      <FieldError id={`${id}-error`}>{join.isError ? errorMessage(join.error) : null}</FieldError>
      <Button type="submit" variant="primary" disabled={!name.trim() || join.isPending}>
        Start playing
      </Button>
    </Form>
  );
}

function PlayEpisode({
  progress,
  moving,
  onNext,
}: {
  progress: PlayerProgress;
  moving: boolean;
  onNext: () => void;
}) {
  useEpisodeFeed();
  const status = useEpisodeStore((s) => s.status);
  const end = useEpisodeStore(selectEndReason);
  const total = useEpisodeStore(selectTotalReward);
  const caller = useToolCall();
  useKeepAlive(status === "ready" && end === null);
  const current = progress.current!;
  const last = current.position === progress.total - 1;
  return (
    <div className="grid gap-5 lg:grid-cols-[minmax(0,1fr)_26rem]">
      <div className="flex min-w-0 flex-col gap-4">
        <PromptCard />
        <StepsSection caller={caller} loading="Opening the task" />
      </div>
      <aside className="flex flex-col gap-4" aria-label="Task controls">
        <Card>
          <CardHeader>
            <CardTitle>
              Task {current.position + 1} of {progress.total}
            </CardTitle>
            {end && <Badge tone={end === "finished" ? "green" : "amber"}>{endHeadline(end)}</Badge>}
          </CardHeader>
          <CardBody className="flex flex-col gap-2">
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Reward so far: <RewardValue value={total} />
            </p>
            <Button variant={end ? "primary" : "secondary"} disabled={moving} onClick={onNext}>
              {last
                ? end
                  ? "Finish"
                  : "Give up and finish"
                : end
                  ? "Next task"
                  : "Give up and go to the next task"}
            </Button>
          </CardBody>
        </Card>
        <ToolPanel caller={caller} />
      </aside>
    </div>
  );
}

function Results({ progress }: { progress: PlayerProgress }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>
          All {progress.total} tasks played. Thank you, {progress.player}!
        </CardTitle>
      </CardHeader>
      <CardBody>
        <ol className="flex flex-col gap-1 text-sm">
          {progress.tasks.map((t, i) => (
            <li key={t.taskIndex}>
              Task {i + 1}: {t.status === "done" ? <RewardValue value={t.reward} /> : t.status}
            </li>
          ))}
        </ol>
      </CardBody>
    </Card>
  );
}

export function PlayView({
  token,
  env,
  split,
  total,
}: {
  token: string;
  env: string;
  split: string;
  total: number;
}) {
  const [progress, setProgress] = useState<PlayerProgress | null>(null);
  const next = usePlayerMove(token, "next");
  const move = () => progress && next.mutate(progress.player, { onSuccess: setProgress });
  const done = progress !== null && !progress.current && progress.played === progress.total;
  return (
    <main className="mx-auto flex w-full max-w-7xl flex-col gap-4 px-4 py-6">
      <header className="space-y-1">
        <h1 className="text-xl font-semibold tracking-tight">
          {env} · {split}
        </h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {total} task{total === 1 ? "" : "s"} to play, one after another
          {progress ? `, as ${progress.player}: ${progress.played} played` : ""}. Each is recorded with your
          name.
        </p>
      </header>
      {next.isError && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {errorMessage(next.error)}
        </p>
      )}
      {!progress ? (
        <JoinForm token={token} onJoined={setProgress} />
      ) : progress.current ? (
        <EpisodeStoreProvider
          key={progress.current.sid}
          server={progress.current.server}
          env={progress.current.env}
          sid={progress.current.sid}
          idleLimitMs={null}
          apiBase={playApiBase(token)}
        >
          <PlayEpisode progress={progress} moving={next.isPending} onNext={move} />
        </EpisodeStoreProvider>
      ) : done ? (
        <Results progress={progress} />
      ) : (
        <Button variant="primary" className="self-start" disabled={next.isPending} onClick={move}>
          {progress.played ? `Play task ${progress.played + 1} of ${progress.total}` : "Play the first task"}
        </Button>
      )}
    </main>
  );
}
