"use client";
// A tool's input remembered per server / environment / task / tool in localStorage, so coming back
// to the same task pre-fills the form. Never secrets: fields whose name says secret, password,
// token or key are dropped before saving.
import { useCallback, useEffect, useRef, useState } from "react";
import type { JsonObject } from "@/lib/ors/protocol";
import type { EpisodeTask } from "@/lib/ui/episode-store";

const SENSITIVE = /secret|passw|token|api[_-]?key|credential/i;

function hashString(s: string): string {
  let h = 5381;
  for (let i = 0; i < s.length; i++) h = ((h << 5) + h + s.charCodeAt(i)) | 0;
  return (h >>> 0).toString(36);
}

export function taskKeyOf(task: EpisodeTask | null): string {
  if (!task) return "unknown";
  if ("split" in task) return `${task.split}/${task.index}`;
  return `spec-${hashString(JSON.stringify(task.task_spec))}`;
}

export function rememberedInputKey(
  server: string,
  env: string,
  task: EpisodeTask | null,
  tool: string,
): string {
  return `ors-input:v1:${server}:${env}:${taskKeyOf(task)}:${tool}`;
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!SENSITIVE.test(k)) out[k] = scrub(v);
    return out;
  }
  return value;
}

/** `[value, setValue]` of a tool's input, loaded from and saved to localStorage under `key`. */
export function useRememberedInput(key: string): [JsonObject, (v: JsonObject) => void, boolean, () => void] {
  const [state, setState] = useState<{ key: string; value: JsonObject; loaded: boolean }>({
    key,
    value: {},
    loaded: false,
  });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    let value: JsonObject = {};
    try {
      const raw = localStorage.getItem(key);
      const parsed = raw ? JSON.parse(raw) : null;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) value = parsed as JsonObject;
    } catch {
      // unreadable: start empty
    }
    setState({ key, value, loaded: true });
  }, [key]);

  const pending = useRef<{ key: string; value: JsonObject } | null>(null);
  const flush = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    const p = pending.current;
    pending.current = null;
    if (!p) return;
    try {
      localStorage.setItem(p.key, JSON.stringify(scrub(p.value)));
    } catch {
      // quota: not remembered
    }
  }, []);

  // Typing is saved a moment later; leaving the page or the tool saves at once.
  useEffect(() => {
    window.addEventListener("pagehide", flush);
    return () => {
      window.removeEventListener("pagehide", flush);
      flush();
    };
  }, [flush]);

  const set = useCallback(
    (value: JsonObject) => {
      setState({ key, value, loaded: true });
      pending.current = { key, value };
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(flush, 250);
    },
    [key, flush],
  );

  const current = state.key === key ? state.value : {};
  return [current, set, state.key === key && state.loaded, flush];
}
