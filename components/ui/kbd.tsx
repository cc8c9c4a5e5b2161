// A key of the keyboard, as the shortcuts' hints show it.
import { styled } from "./styled";

export const Kbd = styled(
  "kbd",
  "inline-flex h-4 min-w-4 items-center justify-center rounded border border-zinc-300 bg-zinc-50 px-1 font-mono text-[10px] text-zinc-600 dark:border-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
);
