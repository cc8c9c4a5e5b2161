// Content both ways between ORS blocks and MCP content (docs/mcp.md "What maps to what"): text is
// text and images are images; MCP content ORS has no block for (audio, resources, resource links)
// becomes a text block that names its type. Relative imports only: the SDK bundle includes it.
import type { Block } from "../ors/protocol/schemas";

/** MCP content as this bridge reads and writes it (the MCP specification's ContentBlock). */
export type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name?: string; mimeType?: string; description?: string }
  | {
      type: "resource";
      resource: { uri: string; mimeType?: string; text?: string; blob?: string };
    }
  | { type: string; [key: string]: unknown };

/** ORS blocks as MCP content: text as text, images as image content. */
export function orsBlocksToMcp(blocks: readonly Block[]): McpContent[] {
  return blocks.map((b) =>
    b.type === "image"
      ? { type: "image", data: b.data, mimeType: b.mimeType }
      : { type: "text", text: b.text },
  );
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/** How much base64 data is, in bytes (for the note that stands in for audio or a blob). */
function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, "").length * 3) / 4);
}

/** One MCP content item as an ORS block; what ORS cannot show becomes text naming its type. */
export function mcpContentToOrs(c: McpContent): Block {
  const item = c as Record<string, unknown>;
  switch (c.type) {
    case "text":
      return { type: "text", text: str(item.text) ?? "", detail: null };
    case "image": {
      const data = str(item.data);
      const mimeType = str(item.mimeType);
      if (data !== null && mimeType !== null) return { type: "image", data, mimeType, detail: null };
      return { type: "text", text: "[image content without data or mimeType]", detail: null };
    }
    case "audio": {
      const data = str(item.data) ?? "";
      return {
        type: "text",
        text: `[audio content: ${str(item.mimeType) ?? "unknown type"}, ${base64Bytes(data)} bytes]`,
        detail: null,
      };
    }
    case "resource_link":
      return {
        type: "text",
        text: `[resource_link] ${[str(item.name), str(item.uri), str(item.description)].filter(Boolean).join(" — ")}`,
        detail: null,
      };
    case "resource": {
      const r = (item.resource ?? {}) as Record<string, unknown>;
      const head = `[resource ${str(r.uri) ?? "(no uri)"}${str(r.mimeType) ? ` (${str(r.mimeType)})` : ""}]`;
      const text = str(r.text);
      if (text !== null) return { type: "text", text: `${head}\n${text}`, detail: null };
      const blob = str(r.blob);
      return {
        type: "text",
        text: `${head} ${blob === null ? "without content" : `${base64Bytes(blob)} bytes of binary data`}`,
        detail: null,
      };
    }
    default:
      return {
        type: "text",
        text: `[MCP content of type ${JSON.stringify(String(c.type))}: not shown here (text and image are)]`,
        detail: null,
      };
  }
}

/** MCP content as ORS blocks. */
export function mcpContentToOrsBlocks(content: readonly McpContent[]): Block[] {
  return content.map(mcpContentToOrs);
}

/** The text of MCP content, its text items joined by newlines (what reward functions usually read). */
export function mcpText(content: readonly McpContent[]): string {
  return content
    .filter((c): c is { type: "text"; text: string } => c.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n");
}
