// Module resolve hook behind hot reload (registered by lib/environments/module-loader.ts, after tsx):
// an import whose URL carries `?ors-v=N` loads a fresh copy of every file of its graph outside
// node_modules and the playground's own lib/ (so environment code reloads, libraries stay shared),
// TypeScript files as ES modules (a `.ts` file in a folder without "type": "module" would otherwise
// load through require(), whose cache ignores the version). It reports each versioned file to the
// main thread (what to watch), and maps `ors-playground/sdk` to the SDK of the running playground.

const VERSION = /[?&]ors-v=(\d+)/;
const TS = /\.(tsx?|mts)$/;
let sdkUrl = "";
let sharedPrefixes = [];
let port = null;

export function initialize(data) {
  sdkUrl = data.sdkUrl;
  sharedPrefixes = data.sharedPrefixes;
  port = data.port;
  // Answers a flush after every file reported before it (messages on a port stay in order).
  port.on("message", (m) => {
    if (m && typeof m.flush === "number") port.postMessage({ flushed: m.flush });
  });
  port.unref();
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === "ors-playground/sdk" || specifier === "ors-playground")
    return nextResolve(sdkUrl, context);
  const version = VERSION.exec(context.parentURL ?? "")?.[1] ?? VERSION.exec(specifier)?.[1];
  const resolved = await nextResolve(specifier, context);
  if (!version || !resolved.url.startsWith("file:")) return resolved;
  const url = new URL(resolved.url);
  // tsx marks files it loads through require() with queries inside the path or the search: drop them.
  const file = decodeURIComponent(url.pathname).replace(/\?.*$/, "");
  if (file.includes("/node_modules/") || sharedPrefixes.some((p) => file.startsWith(p))) return resolved;
  const out = new URL("file://");
  out.pathname = file;
  out.search = `ors-v=${version}`;
  port?.postMessage({ version: Number(version), file });
  return { url: out.href, format: TS.test(file) ? "module" : resolved.format, shortCircuit: true };
}
