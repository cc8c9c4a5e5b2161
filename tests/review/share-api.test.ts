// Share links through the app's route handlers, in process, on its built-in host and a real SQLite
// store: a link to three tasks of `math`, a player who joins (a run with the policy `human`), plays
// each task through the link's relay and moves on; what the link refuses (other sessions, servers,
// environments, endpoints); the run's figures; revoking it. The request policy's side is
// tests/security/share-policy.test.ts; the browser's, e2e/review.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlayerProgress } from "@/lib/review/share";
import { isRunError } from "@/lib/runs/errors";
import { appUnderTest } from "./helpers";

let app: Awaited<ReturnType<typeof appUnderTest>>;

beforeAll(async () => {
  app = await appUnderTest({
    shares: () => import("@/app/api/shares/route"),
    share: () => import("@/app/api/shares/[token]/route"),
    play: () => import("@/app/api/play/[token]/route"),
    join: () => import("@/app/api/play/[token]/join/route"),
    next: () => import("@/app/api/play/[token]/next/route"),
    relay: () => import("@/app/api/play/[token]/servers/[name]/[...path]/route"),
    bySession: () => import("@/app/api/play/[token]/trajectories/by-session/[server]/[sid]/route"),
    events: () => import("@/app/api/play/[token]/trajectories/[id]/events/route"),
    run: () => import("@/app/api/runs/[id]/route"),
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
});

type Progress = PlayerProgress;

const SAME_ORIGIN = { origin: "http://127.0.0.1:3000", "sec-fetch-site": "same-origin" };

/** A player's ORS request through the link's relay. */
function viaLink(
  token: string,
  method: string,
  orsPath: string,
  o: { sid?: string; body?: unknown; server?: string } = {},
) {
  const server = o.server ?? "local";
  return app.call("relay", method, `/api/play/${token}/servers/${server}${orsPath}`, {
    params: { token, name: server, path: orsPath.slice(1) },
    headers: { ...(o.sid ? { "x-session-id": o.sid } : {}), accept: "text/event-stream" },
    ...(o.body !== undefined ? { body: o.body } : {}),
  });
}

async function answerOf(taskIndex: number): Promise<string> {
  return String((await app.pg.clientFor("local").task("math", "train", taskIndex)).task.answer);
}

describe("a share link played to its end", () => {
  let token: string;
  let progress: Progress;

  it("is made for a split's tasks, checked against the server", async () => {
    const bad = await app.json(
      app.call("shares", "POST", "/api/shares", {
        body: { server: "local", env: "math", split: "train", tasks: "0-900" },
      }),
    );
    expect(bad).toMatchObject({
      status: 400,
      body: { detail: expect.stringMatching(/^tasks: task 900 is beyond the split/) },
    });
    expect(
      (
        await app.json(
          app.call("shares", "POST", "/api/shares", {
            body: { server: "local", env: "nope", split: "train" },
          }),
        )
      ).status,
    ).toBe(400);
    expect(
      (
        await app.json(
          app.call("shares", "POST", "/api/shares", {
            body: { server: "local", env: "math", split: "train", tasks: "0-2", expiresAt: 1000 },
          }),
        )
      ).body.detail,
    ).toMatch(/expiresAt: the date has passed/);
    const r = await app.json<{ token: string; tasks: number[]; revokedAt: null }>(
      app.call("shares", "POST", "/api/shares", {
        body: { server: "local", env: "math", split: "train", tasks: [4, 0, 2], note: "lab baseline" },
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tasks: [4, 0, 2], revokedAt: null, note: "lab baseline" });
    expect(r.body.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    token = r.body.token;
  });

  it("tells a player what it plays, and nothing about who made it", async () => {
    const r = await app.json(app.call("play", "GET", `/api/play/${token}`, { params: { token } }));
    expect(r.body).toEqual({ env: "math", split: "train", tasks: 3, expiresAt: null });
    const unknown = await app.json(app.call("play", "GET", "/x", { params: { token: "A".repeat(32) } }));
    expect(unknown).toMatchObject({ status: 404, body: { detail: "this share link does not exist" } });
  });

  it("lets a player join (a run with the policy human, their cookie set) and start the first task", async () => {
    const noName = await app.json(
      app.call("join", "POST", "/x", { params: { token }, body: { player: " " } }),
    );
    expect(noName.status).toBe(400);
    const j = await app.json<Progress>(
      app.call("join", "POST", "/x", { params: { token }, body: { player: "Ada" }, headers: SAME_ORIGIN }),
    );
    expect(j.status).toBe(200);
    expect(j.headers.get("set-cookie")).toBe(
      `ors_playground_share_3000=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800`,
    );
    expect(j.body).toMatchObject({ player: "Ada", total: 3, played: 0, current: null });
    const run = (await app.pg.store.getRun(j.body.runId))!;
    expect(run).toMatchObject({
      status: "running",
      server: "local",
      env: "math",
      split: "train",
      instance: null,
    });
    expect(run.config).toMatchObject({
      policy: { kind: "human", player: "Ada", share: token },
      policyLabel: "human Ada",
    });
    // Joining again is the same run.
    const again = await app.json<Progress>(
      app.call("join", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
    );
    expect(again.body.runId).toBe(j.body.runId);
    const n = await app.json<Progress>(
      app.call("next", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
    );
    expect(n.status).toBe(200);
    progress = n.body;
    expect(progress.current).toMatchObject({ server: "local", env: "math", taskIndex: 4, position: 0 });
    const t = (await app.pg.store.get(progress.current!.trajectoryId))!;
    expect(t).toMatchObject({
      run: { id: progress.runId, task_index: 4, repeat: 0 },
      task: { split: "train", index: 4 },
    });
    expect(t.prompt).not.toBeNull();
  });

  it("relays the player's own session's tools and calls, and records them in the run's episode", async () => {
    const { sid, trajectoryId } = progress.current!;
    const tools = await viaLink(token, "GET", "/math/task_tools", { sid });
    expect(tools.status).toBe(200);
    expect(((await tools.json()) as { tools: { name: string }[] }).tools.map((x) => x.name)).toEqual([
      "submit",
    ]);
    const call = await viaLink(token, "POST", "/math/call", {
      sid,
      body: { name: "submit", input: { answer: await answerOf(4) } },
    });
    expect(call.status).toBe(200);
    expect(await call.text()).toContain("event: end");
    const rec = await app.json<{ id: string; total_reward: number; end_reason: string }>(
      app.call("bySession", "GET", "/x", { params: { token, server: "local", sid } }),
    );
    expect(rec.body).toMatchObject({ id: trajectoryId, total_reward: 1, end_reason: "finished" });
    const feed = await app.call("events", "GET", `/api/play/${token}/trajectories/${trajectoryId}/events`, {
      params: { token, id: trajectoryId },
    });
    expect(feed.status).toBe(200);
    expect(feed.headers.get("content-type")).toMatch(/text\/event-stream/);
    await feed.body?.cancel();
  });

  it("refuses every other request under the link: other sessions, servers, environments, endpoints", async () => {
    const { sid } = progress.current!;
    const other = await app.pg.clientFor("local").createSession();
    await app.pg.clientFor("local").create(other.sid, { env_name: "math", split: "train", index: 1 });
    const refused = [
      await viaLink(token, "POST", "/math/call", {
        sid: other.sid,
        body: { name: "submit", input: { answer: "1" } },
      }),
      await viaLink(token, "POST", "/math/call", { body: { name: "submit", input: { answer: "1" } } }),
      await viaLink(token, "POST", "/create_session"),
      await viaLink(token, "POST", "/create", { sid, body: { env_name: "math", split: "train", index: 7 } }),
      await viaLink(token, "GET", "/math/prompt", { sid }),
      await viaLink(token, "POST", "/math/task", { body: { split: "train", index: 4 } }),
      await viaLink(token, "GET", "/list_environments"),
      await viaLink(token, "GET", "/guess/tools"),
      await viaLink(token, "GET", "/math/tools", { server: "second" }),
      await app.call("bySession", "GET", "/x", { params: { token, server: "local", sid: other.sid } }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 400, 403, 403, 403, 403, 403, 403, 403, 403]);
    expect(((await refused[0]!.json()) as { detail: string }).detail).toMatch(
      /a share link plays its own tasks only/,
    );
    await app.pg.clientFor("local").delete(other.sid);
  });

  it("settles each episode as the player moves on, and ends the run after the last task", async () => {
    // Task 0: a wrong answer; task 2: the player moves on without answering.
    let n = await app.json<Progress>(
      app.call("next", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
    );
    expect(n.body.current).toMatchObject({ taskIndex: 0, position: 1 });
    expect(n.body.tasks[0]).toMatchObject({ taskIndex: 4, status: "done", reward: 1 });
    const call = await viaLink(token, "POST", "/math/call", {
      sid: n.body.current!.sid,
      body: { name: "submit", input: { answer: "not a number" } },
    });
    await call.text();
    n = await app.json<Progress>(
      app.call("next", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
    );
    expect(n.body.current).toMatchObject({ taskIndex: 2, position: 2 });
    const skipped = n.body.current!;
    n = await app.json<Progress>(
      app.call("next", "POST", "/x", { params: { token }, body: { player: "Ada" } }),
    );
    expect(n.body).toMatchObject({ played: 3, current: null });
    expect(n.body.tasks.map((t) => [t.taskIndex, t.status, t.reward])).toEqual([
      [4, "done", 1],
      [0, "done", 0],
      [2, "done", 0],
    ]);
    expect((await app.pg.store.summary(skipped.trajectoryId))?.end_reason).toBe("user_closed");
    const s = await app.json(app.call("run", "GET", "/x", { params: { id: n.body.runId } }));
    expect(s.body).toMatchObject({
      status: "done",
      policy: { kind: "human", player: "Ada" },
      episodes: 3,
      completed: 3,
      successRate: 1 / 3,
      meanReward: 1 / 3,
    });
    // The executor does not play a human run: nothing to resume.
    await expect(app.pg.runs.resume(n.body.runId)).rejects.toSatisfy(isRunError);
  });

  it("lists its players for its maker, and once revoked opens nothing (410), stopping the runs of players mid-way", async () => {
    const j = await app.json<Progress>(
      app.call("join", "POST", "/x", { params: { token }, body: { player: "Bo" } }),
    );
    const bo = await app.json<Progress>(
      app.call("next", "POST", "/x", { params: { token }, body: { player: "Bo" } }),
    );
    expect(bo.body.current?.taskIndex).toBe(4);
    const listed = await app.json<{ players: { player: string; played: number; status: string }[] }>(
      app.call("share", "GET", "/x", { params: { token } }),
    );
    expect(listed.body.players.map((p) => [p.player, p.played, p.status])).toEqual([
      ["Ada", 3, "done"],
      ["Bo", 0, "running"],
    ]);
    expect((await app.json(app.call("share", "DELETE", "/x", { params: { token } }))).body).toEqual({
      revoked: token,
    });
    expect((await app.json(app.call("share", "DELETE", "/x", { params: { token } }))).status).toBe(409);
    for (const r of [
      await app.call("play", "GET", "/x", { params: { token } }),
      await app.call("join", "POST", "/x", { params: { token }, body: { player: "Cy" } }),
      await app.call("next", "POST", "/x", { params: { token }, body: { player: "Bo" } }),
      await viaLink(token, "GET", "/math/tools"),
    ]) {
      expect(r.status).toBe(410);
      expect(((await r.json()) as { detail: string }).detail).toBe("this share link was revoked");
    }
    const run = (await app.pg.store.getRun(j.body.runId))!;
    expect(run.status).toBe("cancelled");
    expect((await app.pg.store.summary(bo.body.current!.trajectoryId))?.end_reason).toBe("user_closed");
    // A cancelled human run is not the executor's to resume either.
    await expect(app.pg.runs.resume(run.id)).rejects.toMatchObject({
      status: 409,
      detail: expect.stringMatching(/human run/),
    });
  });

  it("an expired link opens nothing", async () => {
    const r = await app.json<{ token: string }>(
      app.call("shares", "POST", "/api/shares", {
        body: { server: "local", env: "math", split: "train", tasks: "0", expiresAt: Date.now() + 300 },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 400)); // the expiry under test
    const p = await app.json(app.call("play", "GET", "/x", { params: { token: r.body.token } }));
    expect(p).toMatchObject({ status: 410, body: { detail: "this share link has expired" } });
  });
});
