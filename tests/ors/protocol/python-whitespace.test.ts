// The one table of what the reference Python client strips (Python's `str.isspace`), checked
// against Python itself where it is installed, and against the reference-shaped test server's
// chunker: where that server cuts before such a character, the table flags the piece and the
// client's `lstrip()` loses the character.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  isPythonWhitespace,
  isPythonWhitespaceCode,
  isStrippedByClients,
  PYTHON_WHITESPACE_CODE_POINTS,
  pythonLstrip,
} from "@/lib/ors/protocol";
import { CHUNK_SIZE, cutEvery } from "../../fixtures/reference-server/sse";

/** Python 3's `[c for c in range(0x110000) if chr(c).isspace()]`. */
const PYTHON_3_ISSPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002,
  0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

function python(): string | null {
  try {
    return execFileSync("python3", ["-c", "print([c for c in range(0x110000) if chr(c).isspace()])"], {
      encoding: "utf8",
      timeout: 20_000,
    });
  } catch {
    return null;
  }
}

describe("the Python whitespace table", () => {
  it("is Python 3's str.isspace, and the fast check agrees with it on every code point", () => {
    expect([...PYTHON_WHITESPACE_CODE_POINTS]).toEqual(PYTHON_3_ISSPACE);
    const table = new Set(PYTHON_WHITESPACE_CODE_POINTS);
    for (let c = 0; c <= 0x10ffff; c++) if (isPythonWhitespaceCode(c) !== table.has(c)) expect(c).toBe(-1);
    expect(isPythonWhitespace("\u0085x")).toBe(true);
    expect(isPythonWhitespace("\ufeff")).toBe(false); // Python keeps it; JavaScript's trim() does not
    expect(isStrippedByClients(0xfeff)).toBe(true);
    expect(isPythonWhitespace("\u200b")).toBe(false);
    expect(isPythonWhitespace("")).toBe(false);
  });

  it.runIf(python() !== null)("matches the python3 installed here", () => {
    expect(JSON.parse(python()!)).toEqual(PYTHON_3_ISSPACE);
  });

  it("models the client's lstrip()", () => {
    expect(pythonLstrip("\u0085\u001c \u3000x y ")).toBe("x y ");
    expect(pythonLstrip("\ufeffx")).toBe("\ufeffx");
  });
});

describe("the reference-shaped server's chunker, read by the client's lstrip()", () => {
  it("loses each whitespace character a cut falls before, and the table flags exactly those pieces", () => {
    for (const c of [...PYTHON_WHITESPACE_CODE_POINTS, 0x200b, 0xfeff, 0x180e]) {
      const ch = String.fromCodePoint(c);
      const text = `${"a".repeat(CHUNK_SIZE)}${ch}b`;
      const pieces = cutEvery(text);
      expect(pieces[1]!.startsWith(ch)).toBe(true);
      const read = pieces.map(pythonLstrip).join("");
      const flagged = pieces.some((p) => isPythonWhitespace(p));
      expect({ c: c.toString(16), flagged, lost: read !== text }).toEqual({
        c: c.toString(16),
        flagged: PYTHON_3_ISSPACE.includes(c),
        lost: PYTHON_3_ISSPACE.includes(c),
      });
    }
  });
});
