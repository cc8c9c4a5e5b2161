"use client";
// Waiting for the browser to be idle, for code a page can show a moment later (the Markdown
// renderer, the model controls, the protocol log): it loads once the page's own work is done, so it
// never competes with what the user waits for (the tool form).
import { useEffect, useState } from "react";
import { afterPageLoad } from "./ors-loader";

/** Resolves when the main thread is idle (at most `timeoutMs` later). */
export function whenIdle(timeoutMs = 1000): Promise<void> {
  return new Promise((resolve) => {
    if (typeof requestIdleCallback === "function")
      requestIdleCallback(() => resolve(), { timeout: timeoutMs });
    else setTimeout(resolve, 50);
  });
}

/** False until the page has loaded and the browser has been idle once since (or a second passed). */
export function useIdle(): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    let live = true;
    void afterPageLoad()
      .then(() => whenIdle())
      .then(() => live && setIdle(true));
    return () => {
      live = false;
    };
  }, []);
  return idle;
}
