// Relay e2e: add a server in the UI, browse its environments, run an episode through the
// relay; and the same API from outside: /api/servers, the relay as an ORS base URL under
// `next start` (SSE pings streamed through unbuffered), and the relay's refusals.
import { type APIRequestContext, expect, test } from "@playwright/test";

const SECOND_PORT = Number(process.env.E2E_SECOND_PORT ?? 8199);
const SECOND_URL = `http://127.0.0.1:${SECOND_PORT}`;

async function removeServer(request: APIRequestContext, name: string) {
  // The registry persists user servers in the data dir: clear leftovers of an earlier run.
  await request.delete(`/api/servers/${name}`).catch(() => undefined);
}

test.describe("relay and servers", () => {
  test("add a server in the UI, browse its environments, run an episode", async ({ page, request }) => {
    const name = "e2e-added";
    await removeServer(request, name);
    const { task } = await (
      await request.post(`/api/servers/second/math/task`, { data: { split: "train", index: 0 } })
    ).json();

    await page.goto("/");
    const form = page.getByRole("form", { name: "Add server" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("URL").fill(SECOND_URL);
    await form.getByRole("button", { name: "Add server" }).click();

    // The new server shows up, healthy, with the second server's environments.
    const envs = page.getByRole("list", { name: `Environments of ${name}` });
    await expect(envs.getByRole("link", { name: "math", exact: true })).toBeVisible();
    await envs.getByRole("link", { name: "math", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/s/${name}/e/math`));
    await expect(page.getByRole("heading", { level: 1, name: "math" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "submit" })).toBeVisible();

    await page.getByRole("tab", { name: "Tasks" }).click();
    await page.getByRole("link", { name: "Task 0", exact: true }).click();
    await expect(page.getByRole("region", { name: "Task 0 JSON" })).toContainText(String(task.question));
    await page.getByRole("link", { name: "Start episode", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/s/${name}/e/math/episode/new`));
    await page.getByRole("button", { name: "Start episode" }).click();
    await expect(page).toHaveURL(new RegExp(`/s/${name}/e/math/episode/[^/?]+`));
    await expect(page.getByText(String(task.question)).first()).toBeVisible();

    await page.getByRole("textbox", { name: /answer/i }).fill(String(task.answer));
    await page.getByRole("button", { name: "Call submit" }).click();
    const step = page.getByRole("article", { name: "Step 1: submit" });
    await expect(step).toContainText("Correct!");
    await expect(step).toContainText("finished");

    const del = await request.delete(`/api/servers/${name}`);
    expect(del.status()).toBe(200);
  });

  test("/api/servers lists, adds and refuses; the relay is an ORS base URL", async ({ request, baseURL }) => {
    const list = await (await request.get("/api/servers")).json();
    const byName = Object.fromEntries(list.map((s: { name: string }) => [s.name, s]));
    expect(byName.local).toMatchObject({ source: "builtin", health: { ok: true } });
    expect(byName.second).toMatchObject({ source: "env", url: SECOND_URL, health: { ok: true } });

    await removeServer(request, "e2e-api");
    const added = await request.post("/api/servers", {
      data: { name: "e2e-api", url: SECOND_URL, apiKey: "k" },
    });
    expect(added.status()).toBe(201);
    expect(await added.json()).toMatchObject({ name: "e2e-api", source: "user", hasApiKey: true });
    expect(JSON.stringify(await (await request.get("/api/servers")).json())).not.toContain('"k"');

    const remote = await request.post("/api/servers", {
      data: { name: "e2e-far", url: "http://10.9.8.7:8080" },
    });
    expect(remote.status()).toBe(403);
    expect((await remote.json()).detail).toMatch(/not a loopback address/);
    const meta = await request.post("/api/servers", {
      data: { name: "e2e-meta", url: "http://169.254.169.254" },
    });
    expect(meta.status()).toBe(403);
    const csrf = await request.post("/api/servers", {
      data: { name: "e2e-evil", url: SECOND_URL },
      headers: { Origin: "http://evil.example" },
    });
    expect(csrf.status()).toBe(403);

    // A plain ORS episode with the relay as the base URL.
    const base = "/api/servers/e2e-api";
    const { task } = await (
      await request.post(`${base}/math/task`, { data: { split: "test", index: 3 } })
    ).json();
    const { sid } = await (await request.post(`${base}/create_session`)).json();
    const headers = { "X-Session-ID": sid };
    expect(
      (
        await request.post(`${base}/create`, { headers, data: { env_name: "math", split: "test", index: 3 } })
      ).status(),
    ).toBe(200);
    const prompt = await (await request.get(`${base}/math/prompt`, { headers })).json();
    expect(prompt[0].text).toBe(task.question);
    const call = await request.post(`${base}/math/call`, {
      headers: { ...headers, Accept: "text/event-stream" },
      data: { name: "submit", input: { answer: String(task.answer) } },
    });
    expect(call.headers()["content-type"]).toContain("text/event-stream");
    const text = await call.text();
    expect(text).toMatch(/^event: task_id\ndata: \S+\n\n/);
    expect(text).toContain('"reward":1');
    expect((await request.post(`${base}/delete`, { headers })).status()).toBe(200);
    const gone = await request.get(`${base}/math/prompt`, { headers });
    expect(gone.status()).toBe(410);
    expect((await gone.json()).detail).toMatch(/\S/);

    const unknown = await request.get("/api/servers/e2e-nope/health");
    expect(unknown.status()).toBe(404);
    const evil = await request.get("/api/servers/local/health", {
      headers: { Origin: "http://evil.example" },
    });
    expect(evil.status()).toBe(403);
    expect((await request.delete("/api/servers/e2e-api")).status()).toBe(200);
    expect((await request.delete("/api/servers/second")).status()).toBe(403);
    expect(baseURL).toBeTruthy();
  });

  test("a `: ping` crosses the relay under next start while a slow tool runs", async ({ baseURL }) => {
    test.setTimeout(60_000);
    const base = `${baseURL}/api/servers/second`;
    const { sid } = (await (await fetch(`${base}/create_session`, { method: "POST" })).json()) as {
      sid: string;
    };
    await fetch(`${base}/create`, {
      method: "POST",
      headers: { "X-Session-ID": sid, "Content-Type": "application/json" },
      body: JSON.stringify({ env_name: "slow", split: "train", index: 0 }),
    });
    // The second server pings every 10 s: wait 12 s, so a ping comes ~2 s before the result.
    const res = await fetch(`${base}/slow/call`, {
      method: "POST",
      headers: {
        "X-Session-ID": sid,
        "Content-Type": "application/json",
        Accept: "text/event-stream",
        "Accept-Encoding": "gzip, deflate, br",
      },
      body: JSON.stringify({ name: "wait", input: { seconds: 12 } }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const t0 = Date.now();
    let text = "";
    let pingAt = -1;
    let endAt = -1;
    while (endAt < 0) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (pingAt < 0 && text.includes(": ping")) pingAt = Date.now() - t0;
      if (text.includes("event: end")) endAt = Date.now() - t0;
    }
    expect(pingAt).toBeGreaterThan(0);
    expect(endAt - pingAt).toBeGreaterThan(1_000);
    await fetch(`${base}/delete`, { method: "POST", headers: { "X-Session-ID": sid } });
  });
});
