// The SSE answer of the live feeds: `event: <type>` with a JSON payload per live event, a
// `: ping` comment every 15 s, and cleanup when the client goes away.
import "server-only";
import { formatSseComment, formatSseEvent } from "@/lib/ors/protocol";
import type { LiveEvent, LiveFeeds } from "./live";

export function liveSseResponse(
  req: Request,
  live: LiveFeeds,
  id: string | null,
  first: () => { event: string; data: unknown }[],
  closeOn?: (e: LiveEvent) => boolean,
  closeAfterFirst = false,
): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      const send = (event: string, data: unknown) => {
        if (closed) return;
        try {
          controller.enqueue(encoder.encode(formatSseEvent(event, JSON.stringify(data))));
        } catch {
          cleanup();
        }
      };
      const unsubscribe = live.subscribe(id, (e) => {
        // The all-episodes feed carries no frames (chunks can be large; watchers of one episode get them).
        if (id == null && e.type === "frame") return;
        send(e.type, e);
        if (closeOn?.(e)) cleanup();
      });
      const timer = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(formatSseComment("ping")));
      }, 15_000);
      cleanup = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(timer);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      req.signal.addEventListener("abort", () => cleanup());
      for (const f of first()) send(f.event, f.data);
      if (closeAfterFirst) cleanup();
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    },
  });
}
