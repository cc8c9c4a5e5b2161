// What the reference Python client strips (spec: ors-sse.txt, chunks): it reads an SSE `data:`
// value with `str.lstrip()`, which drops every leading character for which Python's `str.isspace`
// is true, so a `chunk` piece must never begin with one. The one table of them, for the host's
// chunker, the conformance check's model of the client and the tests. Isomorphic.

/**
 * The code points of Python 3's `str.isspace` (Unicode's White_Space characters and the
 * information separators U+001C..U+001F): the characters `str.lstrip()` and `str.strip()` remove.
 */
export const PYTHON_WHITESPACE_CODE_POINTS: readonly number[] = Object.freeze([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Whether a code point is whitespace to Python's `str.isspace` (no table lookup: hot path). */
export function isPythonWhitespaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Whether the first character of `ch` is whitespace to Python's `str.isspace`. */
export function isPythonWhitespace(ch: string): boolean {
  const c = ch.codePointAt(0);
  return c !== undefined && isPythonWhitespaceCode(c);
}

/**
 * What a client may strip from the ends of an SSE data value: Python's whitespace (the reference
 * and OpenReward clients) and U+FEFF, the one more that JavaScript's `trim()` removes (the spec's
 * JavaScript example trims). The host keeps its chunk cuts away from all of them.
 */
export function isStrippedByClients(c: number): boolean {
  return c === 0xfeff || isPythonWhitespaceCode(c);
}

/** `s.lstrip()` as Python does it (the client's reading of a `data:` value). */
export function pythonLstrip(s: string): string {
  let i = 0;
  while (i < s.length && isPythonWhitespaceCode(s.charCodeAt(i))) i++;
  return s.slice(i);
}
