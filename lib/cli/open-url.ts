// Opening a URL in the user's browser for `start --open`: the platform's opener (xdg-open on Linux
// and the BSDs, open on macOS, start on Windows), launched and left running. A machine without one
// (a server, a container) gets a sentence saying so, never a failed start.
import { spawn } from "node:child_process";

export type OpenResult = { ok: true; command: string } | { ok: false; reason: string };

/** The opener of a platform: the command and its arguments before the URL. */
export function openerFor(platform: NodeJS.Platform): { command: string; args: string[] } {
  if (platform === "darwin") return { command: "open", args: [] };
  // `start` is a built-in of cmd; its first quoted argument is a window title.
  if (platform === "win32") return { command: "cmd", args: ["/d", "/s", "/c", "start", '""'] };
  return { command: "xdg-open", args: [] };
}

export interface OpenOptions {
  platform?: NodeJS.Platform;
  /** The opener's environment (its PATH, DISPLAY ...): the command's. */
  env: Readonly<Record<string, string | undefined>>;
  /** How long a failing opener has to say so (an exit code) before it counts as launched. */
  settleMs?: number;
}

/**
 * Opens `url` in a browser. Resolves once the opener has failed (not found, or a non-zero exit soon
 * after it started) or seems to be running (some openers wait for the browser to close).
 */
export function openInBrowser(url: string, options: OpenOptions): Promise<OpenResult> {
  const { command, args } = openerFor(options.platform ?? process.platform);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (r: OpenResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const child = spawn(command, [...args, url], {
      env: options.env as NodeJS.ProcessEnv,
      stdio: "ignore",
      detached: true,
      windowsHide: true,
    });
    const timer = setTimeout(() => settle({ ok: true, command }), options.settleMs ?? 1500);
    child.once("error", (err: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        reason:
          err.code === "ENOENT" ? `${command} is not installed here` : `${command} failed: ${err.message}`,
      }),
    );
    child.once("exit", (code, signal) => {
      if (code === 0) settle({ ok: true, command });
      else
        settle({ ok: false, reason: `${command} exited with ${code ?? signal} (no browser to open here?)` });
    });
    // The browser outlives this command's wait for it.
    child.unref();
  });
}
