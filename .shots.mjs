import { chromium } from "@playwright/test";
const base = "http://127.0.0.1:4100";
const [, , ...routes] = process.argv;
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.on("pageerror", (e) => console.log("PAGEERROR", e.message));
page.on("console", (m) => { if (m.type() === "error") console.log("CONSOLE", m.text()); });
for (const r of routes) {
  const [path, name] = r.split("=>");
  await page.goto(base + path);
  await page.waitForTimeout(2500);
  await page.screenshot({ path: `/tmp/shots/${name}.png`, fullPage: true });
  console.log("shot", name);
}
await browser.close();
