// docs/security.md and the README show the part of playwright.config.ts that gives the e2e suite its
// access token "as it is": each part of those excerpts (parts are separated by `// …` lines) is in
// the config, character for character, so users who copy it copy what the suite runs.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(__dirname, "../..");

function excerptParts(file: string): string[] {
  const doc = readFileSync(path.join(ROOT, file), "utf8");
  const at = doc.indexOf("<!-- playwright-config:");
  expect(at, `${file} marks the config excerpt`).toBeGreaterThan(0);
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at))?.[1] ?? "";
  return block
    .split(/^\/\/ …\n/m)
    .map((part) => part.replace(/\n$/, ""))
    .filter((part) => part.trim() !== "");
}

describe("docs/security.md", () => {
  it("shows playwright.config.ts's access-token parts as they are", () => {
    const config = readFileSync(path.join(ROOT, "playwright.config.ts"), "utf8");
    const parts = excerptParts("docs/security.md");
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(parts[0]).toMatch(/^\/\/ #region access-token[\s\S]*\/\/ #endregion$/);
    for (const part of parts) expect(config, part).toContain(part);
  });
});

describe("README.md", () => {
  it("shows the token, the browser's cookie, the baseURL and the webServer's token as the config has them", () => {
    const config = readFileSync(path.join(ROOT, "playwright.config.ts"), "utf8");
    const parts = excerptParts("README.md");
    expect(parts.join("\n")).toMatch(/const TOKEN = process\.env\.PLAYGROUND_TOKEN/);
    expect(parts.join("\n")).toMatch(/storageState:/);
    expect(parts.join("\n")).toMatch(/PLAYGROUND_TOKEN: TOKEN/);
    for (const part of parts) expect(config, part).toContain(part);
  });
});
