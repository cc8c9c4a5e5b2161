// UI e2e: "Check this server": from a server's page to its conformance check, results
// streaming in grouped by outcome, the built-in host with no difference from the spec, the
// reference-shaped server `py` with its deviations shown apart as the reference Python SDK's, and
// the report downloaded as JSON. Locators by role and label.
import { readFile } from "node:fs/promises";
import { expect, test } from "@playwright/test";
import { downloadBy } from "./steps";

test.describe("check this server", () => {
  // A whole check takes up to 90 s (the summary's wait below).
  test.describe.configure({ timeout: 120_000 });

  test("local: from the server page, run by keyboard, results by outcome, clean, Download JSON", async ({
    page,
  }) => {
    await page.goto("/s/local");
    await page.getByRole("link", { name: "Check this server" }).click();
    await expect(page).toHaveURL(/\/s\/local\/check$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Conformance check of local");

    const run = page.getByRole("button", { name: "Run check" });
    await run.focus();
    await page.keyboard.press("Enter");
    const progress = page.getByRole("progressbar", { name: "Checks done" });
    await expect(progress).toBeVisible();
    await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();

    const summary = page.getByRole("status").filter({ hasText: /checks in/ });
    // (Whether the OpenReward client's needs are met is our host's to say: not pinned here.)
    await expect(summary).toContainText("Clean", { timeout: 90_000 });
    await expect(summary).toContainText("0 break the reference client, 0 differ from the spec, 0 errors");
    const total = Number(await progress.getAttribute("aria-valuemax"));
    expect(total).toBeGreaterThan(30);
    await expect(progress).toHaveAttribute("aria-valuenow", String(total));

    // Grouped by outcome: no breaks, no difference (an unknown tool is the spec's event: error); no
    // framework; the idle limit (not given) is not exercised.
    await expect(page.getByRole("heading", { name: /Breaks the reference Python client/ })).toHaveCount(0);
    await expect(page.getByRole("list", { name: /Differs from the spec/ })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: /The server framework's findings/ })).toHaveCount(0);
    const notExercised = page.getByRole("list", { name: /Not exercised/ });
    await expect(notExercised.getByRole("listitem")).toHaveCount(1);
    await expect(notExercised).toContainText("idle-timeout");
    // Passes are folded; open them with the keyboard.
    const show = page.getByRole("button", { name: "Show passed checks" });
    await expect(show).toHaveAttribute("aria-expanded", "false");
    await show.focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: "Hide passed checks" })).toHaveAttribute(
      "aria-expanded",
      "true",
    );

    const file = await downloadBy(page.getByRole("button", { name: "Download JSON" }));
    expect(file.suggestedFilename()).toMatch(/^ors-check-local-.*\.json$/);
    const report = JSON.parse(await readFile((await file.path())!, "utf8"));
    expect(report.format).toBe("ors-conformance/1");
    expect(report.summary).toMatchObject({ ok: true, clean: true, passed: true, owners: { framework: 0 } });
    expect(report.framework).toBeNull();
    expect(report.results).toHaveLength(total);

    const passes = page.getByRole("list", { name: /Passed/ });
    await expect(passes.getByRole("listitem")).toHaveCount(report.summary.counts.pass);
    const chunking = passes.getByRole("listitem").filter({ hasText: "call-chunking" });
    await expect(chunking).toContainText("none starts with whitespace");
    await expect(chunking).toContainText('ors-sse.txt "Chunking"');
  });

  test("py, the reference-shaped server: the SDK's findings shown apart and labelled, the author's on top", async ({
    page,
  }) => {
    await page.goto("/s/py/check");
    await page.getByRole("button", { name: "Run check" }).click();
    const summary = page.getByRole("status").filter({ hasText: /checks in/ });
    // `py` runs with every extra field (REF_EXTRA_FIELDS=all): `annotations` in its ToolSpecs is no
    // known deviation of the SDK, so it is the author's, and it breaks the reference client.
    await expect(summary).toContainText(
      /Not usable as is by the reference client; \d+ findings are the reference Python SDK's, not the environment's\./,
      { timeout: 90_000 },
    );
    const mine = page.getByRole("list", { name: /^Breaks the reference Python client/ });
    await expect(mine.getByRole("listitem")).toHaveCount(2);
    for (const id of ["tools", "task-tools"])
      await expect(
        mine.getByRole("listitem").filter({ has: page.getByText(id, { exact: true }) }),
      ).toContainText('has "annotations"');

    // The rest are the reference Python SDK's, in their own section, each labelled with it.
    const theirs = page.getByRole("list", { name: /The server framework's findings: reference Python SDK/ });
    const chunking = theirs.getByRole("listitem").filter({ hasText: "call-chunking" });
    await expect(chunking).toContainText("start with whitespace");
    await expect(chunking).toContainText("Breaks the reference Python client");
    await expect(chunking).toContainText("reference Python SDK");
    await expect(chunking).toContainText("Known deviation: results are cut every 4096 characters");
    await expect(chunking).toContainText('ors-sse.txt "Chunking"');
    await expect(theirs.getByRole("listitem").filter({ hasText: "invalid-body" })).toContainText("HTTP 422");
    await expect(theirs.getByRole("listitem").filter({ hasText: "unknown-path" })).toContainText("HTTP 308");
    await expect(theirs.getByRole("listitem").filter({ hasText: "call-env-mismatch" })).toContainText(
      "answered by the session's environment",
    );
  });

  test("bad options are named next to their field, and nothing runs", async ({ page }) => {
    await page.goto("/s/local/check");
    await page.getByText("Options").click();
    await page.getByLabel("Task").fill("train");
    await page.getByLabel("Tool input (JSON)").fill("{nope");
    await page.getByRole("button", { name: "Run check" }).click();
    await expect(page.getByLabel("Task")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByRole("alert").filter({ hasText: "split:index" })).toBeVisible();
    await expect(page.getByLabel("Tool input (JSON)")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByRole("progressbar", { name: "Checks done" })).toHaveCount(0);
  });

  test("POST /api/servers/<name>/check: NDJSON start, results, report; refusals say why", async ({
    request,
  }) => {
    const res = await request.post("/api/servers/local/check", {
      data: { env: "guess", task: "train:0", tool: "hint" },
    });
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toContain("application/x-ndjson");
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "start", server: "local" });
    const total = lines[0].checks.length;
    expect(lines.filter((l) => l.type === "result")).toHaveLength(total);
    const report = lines.at(-1);
    expect(report.type).toBe("report");
    expect(report.report.target).toMatchObject({ environment: "guess", task: { split: "train", index: 0 } });
    expect(report.report.target.tool.name).toBe("hint");
    expect(report.report.summary.ok).toBe(true);

    const text = await request.post("/api/servers/local/check", {
      headers: { "content-type": "text/plain" },
      data: "{}",
    });
    expect(text.status()).toBe(415);
    const bad = await request.post("/api/servers/local/check", { data: { task: "train", extra: 1 } });
    expect(bad.status()).toBe(400);
    expect((await bad.json()).detail).toMatch(/task: expected split:index/);
    expect((await request.post("/api/servers/nope/check", { data: {} })).status()).toBe(404);
    const crossSite = await request.post("/api/servers/local/check", {
      headers: { origin: "https://evil.example" },
      data: {},
    });
    expect(crossSite.status()).toBe(403);
  });
});
