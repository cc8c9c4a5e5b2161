// The sizes at which text of environment output is a long text (long-text.tsx), shared with server
// code (prerender.tsx), which cannot read constants from a client module.

/** Text longer than this is a long text (paged, plain); shorter text is shown whole (or as Markdown). */
export const LONG_TEXT = 20_000;
/**
 * About this many characters a page (cut after a line break when there is one near): a page that
 * lays out in a few tens of milliseconds even on a busy machine.
 */
export const PAGE_CHARS = 10_000;
