"use client";
// Share links for human baselines: each opens /play/<token> to someone without the access token,
// for one environment's split; who played and how far; revoke. A new link's form beside them.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Field } from "@/components/runs/form-fields";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { SectionCard } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Form } from "@/components/ui/form";
import { Input } from "@/components/ui/input";
import { leaderboardHref, playHref, runHref } from "@/lib/routes";
import { type ShareWithPlayers, sharesQuery, useCreateShare, useRevokeShare } from "@/lib/ui/review-queries";
import { FormActions, ItemList, Unfold } from "./form-parts";

function ShareForm() {
  const create = useCreateShare();
  const [v, setV] = useState({
    server: "local",
    env: "",
    split: "train",
    tasks: "0-9",
    expires: "",
    note: "",
  });
  const set = (k: keyof typeof v) => (e: { target: { value: string } }) =>
    setV({ ...v, [k]: e.target.value });
  return (
    <Form
      aria-label="New share link"
      className="grid gap-3 sm:grid-cols-3"
      onSubmit={() => {
        create.mutate({
          server: v.server.trim(),
          env: v.env.trim(),
          split: v.split.trim(),
          tasks: v.tasks.trim() || undefined,
          expiresAt: v.expires ? new Date(`${v.expires}T23:59:59`).getTime() : null,
          note: v.note.trim() || null,
        });
      }}
    >
      <Field label="Server">{(p) => <Input {...p} value={v.server} onChange={set("server")} />}</Field>
      <Field label="Environment">
        {(p) => <Input {...p} value={v.env} onChange={set("env")} placeholder="math" />}
      </Field>
      <Field label="Split">{(p) => <Input {...p} value={v.split} onChange={set("split")} />}</Field>
      <Field label="Tasks" hint="all, 0-9, 1,5,9 or sample:20">
        {(p) => <Input {...p} value={v.tasks} onChange={set("tasks")} />}
      </Field>
      <Field label="Expires after (optional)">
        {(p) => <Input {...p} type="date" value={v.expires} onChange={set("expires")} />}
      </Field>
      <Field label="Note (only you see it)">
        {(p) => <Input {...p} value={v.note} onChange={set("note")} />}
      </Field>
      <FormActions
        label="Create share link"
        disabled={create.isPending || !v.env.trim()}
        error={create.error}
        className="sm:col-span-3"
      />
    </Form>
  );
}

function ShareRow({ s, origin }: { s: ShareWithPlayers; origin: string }) {
  const revoke = useRevokeShare();
  const url = `${origin}${playHref(s.token)}`;
  const expired = s.expiresAt !== null && s.expiresAt <= Date.now();
  return (
    <li className="flex flex-col gap-1 border-t border-zinc-200 py-2 first:border-t-0 dark:border-zinc-800">
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <span className="font-mono">
          {s.server}/{s.env}/{s.split}
        </span>
        <span className="text-zinc-500">{s.tasks.length} tasks</span>
        {s.revokedAt !== null ? (
          <Badge tone="red">revoked</Badge>
        ) : expired ? (
          <Badge tone="amber">expired</Badge>
        ) : null}
        {s.note && <span className="text-zinc-500">· {s.note}</span>}
        <Link className="ml-auto text-xs hover:underline" href={leaderboardHref(s.server, s.env, s.split)}>
          Leaderboard
        </Link>
        {s.revokedAt === null && (
          <Button
            size="xs"
            variant="danger"
            disabled={revoke.isPending}
            onClick={() => revoke.mutate(s.token)}
          >
            Revoke
          </Button>
        )}
      </div>
      {s.revokedAt === null && (
        <div className="flex items-center gap-1">
          <code className="truncate text-xs" data-testid="share-url">
            {url}
          </code>
          <CopyButton text={url} label="Copy the link" />
        </div>
      )}
      {s.players.length > 0 && (
        <p className="text-xs text-zinc-600 dark:text-zinc-400">
          Players:{" "}
          {s.players.map((p) => (
            <Link key={p.player} href={runHref(p.runId)} className="mr-2 hover:underline">
              {p.player} ({p.played}/{s.tasks.length})
            </Link>
          ))}
        </p>
      )}
    </li>
  );
}

export function SharesSection() {
  const shares = useQuery(sharesQuery());
  const [origin, setOrigin] = useState("");
  useEffect(() => setOrigin(window.location.origin), []);
  return (
    <SectionCard
      title="Share links (human baselines)"
      titleId="shares-title"
      bodyClassName="flex flex-col gap-4"
    >
      <p className="text-xs text-zinc-500">
        Someone without the access token plays a split's tasks through a link; their episodes are a run with
        the policy <code>human</code> and their name, on the split's leaderboard.
      </p>
      <ItemList query={shares} labelledBy="shares-title" empty="No share link yet.">
        {(s) => <ShareRow key={s.token} s={s} origin={origin} />}
      </ItemList>
      <Unfold summary="New share link">
        <ShareForm />
      </Unfold>
    </SectionCard>
  );
}
