// Escaping for the trajectory's HTML renderings (the one-file HTML export, lib/episodes/html-export.ts,
// and the blocks it embeds, components/trajectories/html-export-blocks.tsx). Isomorphic and pure.

/** `&`, `<`, `>`, `"` and `'` escaped: safe as element text and as a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
