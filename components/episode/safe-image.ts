// Which images of environment output are shown: raster types (png, jpeg, gif, webp) as base64
// data: URLs only — never SVG (scripts), never a remote URL (tracking).
export const RASTER_MIME_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/**
 * The `data:` URL of an image block, or null when it is not a raster image we render: the mime
 * type must be png/jpeg/gif/webp and the data plain base64 (or a data: URL of the same types).
 */
export function safeImageSrc(data: string, mimeType: string): string | null {
  let mime = mimeType.trim().toLowerCase();
  let payload = data;
  if (data.startsWith("data:")) {
    const m = /^data:([a-z0-9.+/-]+);base64,(.*)$/is.exec(data);
    if (!m) return null;
    mime = m[1]!.toLowerCase();
    payload = m[2]!;
  }
  if (mime === "image/jpg") mime = "image/jpeg";
  if (!(RASTER_MIME_TYPES as readonly string[]).includes(mime)) return null;
  if (payload.length === 0 || !BASE64.test(payload)) return null;
  return `data:${mime};base64,${payload.replace(/\s+/g, "")}`;
}
