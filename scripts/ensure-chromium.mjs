// Finds the Chromium that Playwright drives (Debian's, never a downloaded build). On a fresh
// machine where it is missing and we are root, installs Debian's `chromium` package, saying so.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
  Boolean,
);
const found = candidates.find((p) => existsSync(p));
if (found) {
  console.log(`ensure-chromium: using ${found}`);
  process.exit(0);
}
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot) {
  console.error(
    "ensure-chromium: no Chromium found. Install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH.",
  );
  process.exit(1);
}
console.log(
  "ensure-chromium: /usr/bin/chromium is missing; installing Debian's chromium package (apt-get)...",
);
try {
  execSync("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium", {
    stdio: "inherit",
  });
} catch {
  console.error("ensure-chromium: apt-get install chromium failed; install it by hand or set CHROMIUM_PATH.");
  process.exit(1);
}
if (!existsSync("/usr/bin/chromium")) {
  console.error("ensure-chromium: chromium installed but /usr/bin/chromium is still missing.");
  process.exit(1);
}
console.log("ensure-chromium: installed /usr/bin/chromium");
