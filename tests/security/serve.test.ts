// The standalone host (`npm run serve`, scripts/serve.ts) as a real process: the request policy in
// front of it on loopback, and off loopback an API key it generates, prints and requires.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { rawExchange } from "./helpers";

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, "exit");
    process.kill(-child.pid!, "SIGKILL");
    await exited;
  }
});

/** Starts scripts/serve.ts on a free port; resolves with its stdout once it says where it listens. */
async function serve(host: string): Promise<{ url: string; out: () => string }> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/serve.ts", "--port", "0", "--host", host],
    {
      env: { ...process.env, ORS_API_KEYS: "", PLAYGROUND_ALLOWED_HOSTS: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    },
  );
  children.push(child);
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => {
    err += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve.ts did not start: ${out}${err}`)), 60_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+) /.exec(out);
      // Off loopback the key comes on the next lines: wait for the whole message.
      if (m && (host === "127.0.0.1" || /X-API-Key:\n {2}\S+\n/.test(out))) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => reject(new Error(`serve.ts exited with ${code}: ${err}`)));
  });
  return { url, out: () => out };
}

describe("npm run serve", () => {
  it("on loopback: foreign Host 403, cross-site browser writes 403, TRACE and CONNECT 405; curl works", async () => {
    const { url } = await serve("127.0.0.1");
    const port = Number(new URL(url).port);
    const foreign = await rawExchange(
      port,
      "GET /list_environments HTTP/1.1\r\nHost: rebind.evil.example\r\nConnection: close\r\n\r\n",
    );
    expect(foreign).toMatch(/^HTTP\/1\.1 403 /);
    const crossSite = await fetch(`${url}/create_session`, {
      method: "POST",
      headers: { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const plain = await fetch(`${url}/create_session`, {
      method: "POST",
      headers: { origin: url, "content-type": "text/plain" },
      body: "{}",
    });
    expect(plain.status).toBe(415);
    expect(
      await rawExchange(port, `TRACE / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`),
    ).toMatch(/^HTTP\/1\.1 405 /);
    expect(await rawExchange(port, "CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n")).toMatch(
      /^HTTP\/1\.1 405 /,
    );
    const created = await fetch(`${url}/create_session`, { method: "POST" });
    expect(created.status).toBe(200);
    expect(((await created.json()) as { sid: string }).sid).toMatch(/\S/);
  });

  it("off loopback without ORS_API_KEYS: generates a key, prints it and requires it", async () => {
    // An address of this machine other than loopback (or every interface when it has none).
    const external = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === "IPv4");
    const { url, out } = await serve(external?.address ?? "0.0.0.0");
    const key = /X-API-Key:\n {2}(\S+)\n/.exec(out())![1]!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const base = external ? url : url.replace("0.0.0.0", "127.0.0.1");
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const without = await fetch(`${base}/create_session`, { method: "POST" });
    expect(without.status).toBe(401);
    const wrong = await fetch(`${base}/create_session`, { method: "POST", headers: { "x-api-key": "nope" } });
    expect(wrong.status).toBe(401);
    const withKey = await fetch(`${base}/create_session`, { method: "POST", headers: { "x-api-key": key } });
    expect(withKey.status).toBe(200);
  });
});
