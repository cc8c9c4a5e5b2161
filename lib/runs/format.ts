// How the runs' figures read as text, the same in the CLI and on the run pages (lib/ui/run-format.ts
// re-exports them): durations from milliseconds up, and a histogram bin's range with a real minus
// sign, "to", and one precision for both ends. Pure functions, isomorphic.

/** A duration: `820 ms`, `1.9 s`, `3 min 5 s`, `2 h 4 min` (`—` for none). */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

const MINUS = "\u2212";

/** A number with `decimals` decimals and a minus sign (U+2212) when negative; never `−0`. */
export function formatSigned(value: number, decimals: number): string {
  const text = Math.abs(value).toFixed(decimals);
  return value < 0 && Number(text) !== 0 ? `${MINUS}${text}` : text;
}

/**
 * A histogram bin's range, `−1.04 to −0.94`: both ends with the decimals the bin's width needs
 * (two significant digits of it, at most 6), so neighbouring bins read apart. One value alone when
 * the range is empty.
 */
export function formatRange(from: number, to: number): string {
  const width = Math.abs(to - from);
  if (width === 0) return formatSigned(from, Number.isInteger(from) ? 0 : 2);
  const decimals = Math.min(6, Math.max(0, 1 - Math.floor(Math.log10(width))));
  return `${formatSigned(from, decimals)} to ${formatSigned(to, decimals)}`;
}
