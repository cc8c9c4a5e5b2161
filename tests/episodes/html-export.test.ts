// @vitest-environment jsdom
// The HTML export (lib/episodes/html-export.ts, components/trajectories/html-export-blocks.tsx)
// through its real routes and the real SQLite store, parsed by jsdom's DOMParser: what a researcher reads
// (steps, inputs, outputs as text or Markdown, images, rewards, the chart) is there, and a hostile
// trajectory (script tags, javascript: links, SVG images, event handlers in Markdown and raw HTML)
// leaves no script, no event handler, no unsafe markup and no external reference in the file.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Trajectory } from "@/lib/trajectory/schema";
import { step, tempDir, trajectory } from "./helpers";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString("base64");

const HOSTILE_MARKDOWN = [
  "# Report <script>alert('md-script')</script>",
  "",
  "- [click me](javascript:alert('js-link'))",
  `- ![svg](data:image/svg+xml;base64,${SVG})`,
  "- ![tracker](https://evil.example/pixel.png)",
  `- ![dot](data:image/png;base64,${PNG})`,
  '- <img src="x" onerror="alert(\'raw-img\')">',
  "- **bold** and `code` and <javascript:alert('autolink')>",
  "- [a page](https://example.com/page)",
  "",
  '<iframe src="https://evil.example/frame"></iframe>',
  '<a href="https://evil.example" onclick="alert(\'raw-a\')">raw link</a>',
  "",
  "| col | n |",
  "| --- | ---: |",
  "| a | 1 |",
].join("\n");

function hostile(id: string): Trajectory {
  return trajectory(id, {
    env: `<img src=x onerror="alert('env')">`,
    prompt: [
      { type: "text", text: HOSTILE_MARKDOWN },
      { type: "text", text: "plain <script>alert('plain')</script> text" },
    ],
    steps: [
      step(1, {
        tool: `"><script>alert('tool')</script>`,
        input: { html: "</pre><script>alert('input')</script>" },
        blocks: [
          { type: "image", data: PNG, mimeType: "image/png" },
          { type: "image", data: SVG, mimeType: "image/svg+xml" },
          { type: "text", text: "**Score**: 1\n\n- `<b onmouseover=alert('x')>`" },
        ],
        metadata: { note: "<svg onload=alert('meta')>" },
        reward: 0.5,
      }),
      step(2, {
        ok: false,
        error: "<script>alert('error')</script>",
        blocks: [],
        reward: -1,
        finished: true,
      }),
    ],
    total_reward: -0.5,
    error: "<b>ended</b>",
    end_reason: "error",
  });
}

let dir = "";
type Get = (req: Request, ctx?: { params: Promise<{ id: string }> }) => Response | Promise<Response>;
let oneRoute: Get;
let listRoute: Get;

beforeAll(async () => {
  dir = tempDir("html-export-");
  process.env.PLAYGROUND_DATA_DIR = path.join(dir, "data");
  oneRoute = (await import("@/app/api/trajectories/[id]/export/route")).GET as Get;
  listRoute = (await import("@/app/api/trajectories/export/route")).GET as Get;
  const { store } = (await import("@/lib/playground")).getPlayground();
  await store.importMany([
    hostile("hostile1"),
    trajectory("calm1", { env: "calm" }),
    trajectory("calm2", { env: "calm" }),
    trajectory("other", { env: "else" }),
  ]);
});

afterAll(async () => {
  await (await import("@/lib/playground")).getPlayground().close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function exportOne(id: string, query = "format=html") {
  return oneRoute(new Request(`http://app.test/api/trajectories/${id}/export?${query}`), {
    params: Promise.resolve({ id }),
  });
}

async function html(res: Response): Promise<{ text: string; doc: Document }> {
  expect(res.status).toBe(200);
  const text = await res.text();
  return { text, doc: new DOMParser().parseFromString(text, "text/html") };
}

/** Everything in the file that could run, load or navigate, as readable findings (none expected). */
function unsafe(doc: Document): string[] {
  const found: string[] = [];
  for (const el of doc.querySelectorAll(
    "script, iframe, frame, object, embed, link, base, form, audio, video, source, track, template, noscript, math, foreignObject, image, use",
  ))
    found.push(`<${el.tagName.toLowerCase()}>`);
  if (doc.querySelectorAll("style").length !== 1) found.push("more than one <style>");
  for (const m of doc.querySelectorAll("meta[http-equiv]"))
    if (m.getAttribute("http-equiv")?.toLowerCase() !== "content-security-policy") found.push("meta refresh");
  for (const el of doc.querySelectorAll("*")) {
    for (const a of el.attributes) {
      const name = a.name.toLowerCase();
      const v = a.value.trim();
      if (name.startsWith("on")) found.push(`${el.tagName} ${name}`);
      if (name === "style") found.push(`${el.tagName} style attribute`);
      if (/javascript:|vbscript:/i.test(v)) found.push(`${el.tagName} ${name}=${v}`);
      if (v.includes("://") && name !== "content") found.push(`${el.tagName} ${name}=${v}`);
      if (["srcset", "action", "formaction", "background", "poster", "xlink:href", "ping"].includes(name))
        found.push(`${el.tagName} ${name}`);
      if (name === "href" && !/^#[\w-]+$/.test(v)) found.push(`${el.tagName} href=${v}`);
      if (name === "src" && !/^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]+$/.test(v))
        found.push(`${el.tagName} src=${v.slice(0, 40)}`);
    }
  }
  return found;
}

describe("GET /api/trajectories/<id>/export?format=html", () => {
  it("is one self-contained HTML file with a strict CSP whose style hash matches its one style", async () => {
    const res = await exportOne("calm1");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="trajectory-calm1.html"');
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'.*sandbox/);
    const { doc } = await html(res);
    const csp = doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content");
    const style = doc.querySelector("style")?.textContent ?? "";
    const hash = createHash("sha256").update(style).digest("base64");
    expect(csp).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src data:; base-uri 'none'; form-action 'none'`,
    );
    expect(unsafe(doc)).toEqual([]);
  });

  it("holds the steps, inputs, outputs, rewards and the reward chart", async () => {
    const { doc } = await html(await exportOne("calm1"));
    const article = doc.querySelector("article#t-calm1")!;
    expect(article.querySelector("h2")?.textContent).toMatch(/^calm · train\/3/);
    const steps = [...article.querySelectorAll("li.step")];
    expect(steps.map((s) => s.querySelector("h4")?.textContent)).toEqual([
      "Step 1 · answer",
      "Step 2 · answer",
    ]);
    expect(steps[0]!.querySelector("pre")?.textContent).toBe('{\n  "answer": "1"\n}');
    expect(steps[1]!.textContent).toContain("observation 2");
    expect(steps[1]!.textContent).toMatch(/reward \+1\s*cumulative 2/);
    const chart = article.querySelector("svg.chart")!;
    expect(chart.getAttribute("role")).toBe("img");
    expect(chart.getAttribute("aria-label")).toBe("Reward per step: 2 steps, total 2");
    expect(chart.querySelectorAll("rect")).toHaveLength(2);
    expect(chart.querySelector("path")?.getAttribute("d")).toMatch(/^M[\d.]+,[\d.]+ L[\d.]+,[\d.]+$/);
  });

  it("renders a hostile trajectory as text and sanitized Markdown: no script, handler, unsafe URL or external reference", async () => {
    const { text, doc } = await html(await exportOne("hostile1"));
    expect(unsafe(doc)).toEqual([]);
    // The raw markup is nowhere as markup (only as escaped text: `&#60;script`)...
    expect(text).not.toMatch(/<(script|iframe|object|embed)\b|<svg [^>]*\son\w+=|<img [^>]*\son\w+=/i);
    // ...but what the environment wrote is readable as text.
    const body = doc.body.textContent ?? "";
    expect(body).toContain(`<img src=x onerror="alert('env')">`);
    expect(body).toContain("plain <script>alert('plain')</script> text");
    expect(body).toContain(`"><script>alert('tool')</script>`);
    expect(body).toContain("</pre><script>alert('input')</script>");
    expect(body).toContain("<svg onload=alert('meta')>");
    expect(body).toContain("<script>alert('error')</script>");
    // The Markdown is rendered by the app's rules: headings, lists, strong, code, a table.
    const prompt = doc.querySelector("article .md")!;
    // Raw HTML tags are dropped, their text kept, as in the app.
    expect(prompt.querySelector("h1")?.innerHTML).toBe("Report alert('md-script')");
    expect(prompt.querySelector("strong")?.textContent).toBe("bold");
    expect(prompt.querySelector("table td.align-right")?.textContent).toBe("1");
    // Links are shown with their address, never followed; a javascript: one loses its address.
    expect(prompt.querySelector("a")).toBeNull();
    expect(prompt.textContent).toContain("a page (https://example.com/page)");
    expect(prompt.textContent).toContain("click me");
    expect(prompt.textContent).not.toContain("javascript:alert('js-link')");
    // Images: only the raster data: ones; the SVG and remote ones say they were not loaded.
    const imgs = [...doc.querySelectorAll("img")].map((i) => i.getAttribute("src"));
    expect(imgs).toEqual([`data:image/png;base64,${PNG}`, `data:image/png;base64,${PNG}`]);
    expect(prompt.textContent).toContain("[image not loaded: svg]");
    expect(prompt.textContent).toContain("[image not loaded: tracker]");
    expect(body).toContain("Image not shown: image/svg+xml is not a raster image");
    // The step's own Markdown output, and its failed step's error as text.
    const [one, two] = [...doc.querySelectorAll("li.step")];
    expect(one!.querySelector(".md strong")?.textContent).toBe("Score");
    expect(one!.querySelector(".md code")?.textContent).toBe("<b onmouseover=alert('x')>");
    expect(two!.querySelector(".note.error")?.textContent).toBe("<script>alert('error')</script>");
    expect(doc.querySelector("article dl")?.textContent).toContain("Total reward-0.5");
  });

  it("answers 404 for an unknown trajectory and 400 for another format", async () => {
    const missing = await exportOne("nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'no trajectory with id "nope"' });
    const json = await exportOne("calm1", "format=json");
    expect(json.status).toBe(400);
    expect((await json.json()).detail).toMatch(/^format: expected "html", got "json"/);
  });
});

describe("GET /api/trajectories/export?format=html (the list's export)", () => {
  it("puts the trajectories matching the filters in one file, with a table of contents", async () => {
    const res = await listRoute(new Request("http://app.test/api/trajectories/export?format=html&env=calm"));
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="trajectories-.*\.html"$/);
    const { doc } = await html(res);
    expect(unsafe(doc)).toEqual([]);
    const toc = [...doc.querySelectorAll("nav tbody tr a")].map((a) => a.getAttribute("href"));
    expect(toc.sort()).toEqual(["#t-calm1", "#t-calm2"]);
    expect([...doc.querySelectorAll("article")].map((a) => a.id).sort()).toEqual(["t-calm1", "t-calm2"]);
    expect(doc.querySelector("header")?.textContent).toContain("Filters: env=calm");
  });

  it("keeps the hostile one safe among others, and refuses an unknown format naming html", async () => {
    const { doc } = await html(
      await listRoute(new Request("http://app.test/api/trajectories/export?format=html")),
    );
    expect(doc.querySelectorAll("article")).toHaveLength(4);
    expect(unsafe(doc)).toEqual([]);
    const bad = await listRoute(new Request("http://app.test/api/trajectories/export?format=pdf"));
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toBe(
      'format: expected one of jsonl, chat-jsonl, atif, html, got "pdf"',
    );
  });
});
