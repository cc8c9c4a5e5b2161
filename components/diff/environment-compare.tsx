"use client";

// The compare view: an environment against another known server's environment (`?with=&withEnv=`
// in the URL, so a comparison can be shared and reloaded), the choice made with two selects, the
// surface diff below as a table.
import { useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useId, useState } from "react";
import { Button } from "@/components/ui/button";
import { ErrorPanel } from "@/components/ui/error-panel";
import { Label, Select } from "@/components/ui/input";
import { compareEnvHref } from "@/lib/routes";
import { useSurfaceDiff } from "@/lib/ui/diff-queries";
import { useEnvironments, useServers } from "@/lib/ui/queries";
import { SurfaceDiffTable } from "./surface-diff-table";

export function EnvironmentCompare({ server, env }: { server: string; env: string }) {
  const params = useSearchParams();
  const router = useRouter();
  const chosen = { server: params.get("with") ?? "", env: params.get("withEnv") ?? "" };
  const [other, setOther] = useState(chosen.server);
  const [otherEnv, setOtherEnv] = useState(chosen.env || env);
  const servers = useServers();
  const envs = useEnvironments(other);
  const diff = useSurfaceDiff(server, env, chosen.server, chosen.env);
  const ids = { server: useId(), env: useId() };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (other && otherEnv) router.replace(compareEnvHref(server, env, { server: other, env: otherEnv }));
  };

  return (
    <div className="space-y-5">
      <form onSubmit={submit} className="flex flex-wrap items-end gap-3">
        <div className="flex flex-col gap-1">
          <Label htmlFor={ids.server}>Server</Label>
          <Select
            id={ids.server}
            value={other}
            onValueChange={setOther}
            options={(servers.data ?? []).map((s) => s.name)}
          >
            <option value="">Choose a server</option>
          </Select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor={ids.env}>Environment</Label>
          <Select
            id={ids.env}
            value={otherEnv}
            disabled={!other}
            onValueChange={setOtherEnv}
            options={envs.data ?? []}
          >
            {!(envs.data ?? []).includes(otherEnv) && <option value={otherEnv}>{otherEnv || "—"}</option>}
          </Select>
        </div>
        <Button type="submit" variant="primary" size="sm" disabled={!other || !otherEnv}>
          Compare
        </Button>
      </form>
      {diff.isFetching && (
        <p role="status" className="text-sm text-zinc-500">
          Reading both environments (tools, splits, task specs, sampled prompts)…
        </p>
      )}
      {diff.isError && <ErrorPanel error={diff.error} />}
      {diff.data && <SurfaceDiffTable report={diff.data} />}
    </div>
  );
}
