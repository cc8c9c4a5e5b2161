"use client";

// Light / dark / system theme, persisted in localStorage ("ors-theme"); the `dark` class on <html>
// drives Tailwind's class-based dark variant (see app/globals.css).
import { Monitor, Moon, Sun } from "lucide-react";
import { useEffect, useState } from "react";
import { cn } from "@/lib/ui/cn";
import { THEME_STORAGE_KEY as STORAGE_KEY, type Theme } from "./theme-script";

function apply(theme: Theme) {
  const dark =
    theme === "dark" || (theme === "system" && window.matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.classList.toggle("dark", dark);
}

const options: { value: Theme; label: string; Icon: typeof Sun }[] = [
  { value: "light", label: "Light", Icon: Sun },
  { value: "dark", label: "Dark", Icon: Moon },
  { value: "system", label: "System", Icon: Monitor },
];

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme | null>(null);

  useEffect(() => {
    const saved = (localStorage.getItem(STORAGE_KEY) as Theme | null) ?? "system";
    setTheme(saved);
  }, []);

  useEffect(() => {
    if (!theme) return;
    apply(theme);
    if (theme !== "system") return;
    const mq = window.matchMedia("(prefers-color-scheme: dark)");
    const onChange = () => apply("system");
    mq.addEventListener("change", onChange);
    return () => mq.removeEventListener("change", onChange);
  }, [theme]);

  const choose = (t: Theme) => {
    localStorage.setItem(STORAGE_KEY, t);
    setTheme(t);
  };

  return (
    <fieldset className="flex items-center rounded-md border border-zinc-200 p-0.5 dark:border-zinc-800">
      <legend className="sr-only">Theme</legend>
      {options.map(({ value, label, Icon }) => (
        <button
          key={value}
          type="button"
          aria-pressed={theme === value}
          aria-label={`${label} theme`}
          title={`${label} theme`}
          onClick={() => choose(value)}
          className={cn(
            "inline-flex size-6 items-center justify-center rounded text-zinc-500 hover:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100",
            theme === value && "bg-zinc-100 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100",
          )}
        >
          <Icon aria-hidden="true" className="size-3.5" />
        </button>
      ))}
    </fieldset>
  );
}
