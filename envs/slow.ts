// `slow`: a tool that takes tens of seconds (so the `: ping` comments every 10 s show on the SSE
// stream) and stops early when the call is aborted; plus a fast tool for comparison.
import { z } from "zod";
import { defineEnvironment, defineTool, sleep, text } from "@/lib/ors/sdk";

const wait = defineTool({
  description:
    "Wait the given number of seconds (25 by default, at most 120), then answer. While it runs the " +
    "server sends a `: ping` comment every 10 s. Stops early if the call is aborted.",
  input: z.object({
    seconds: z.number().min(0).max(120).default(25).describe("How long to wait, in seconds"),
  }),
  run: async ({ seconds }, { signal }) => {
    const started = Date.now();
    await sleep(seconds * 1000, signal);
    return {
      blocks: [text(`Waited ${((Date.now() - started) / 1000).toFixed(1)} s.`)],
      reward: 0,
      finished: false,
      metadata: { seconds },
    };
  },
});

const fast = defineTool({
  description: "Answer at once (for comparison with `wait`). `finish: true` ends the episode.",
  input: z.object({ finish: z.boolean().default(false).describe("End the episode with reward 1") }),
  run: ({ finish }) => ({ blocks: [text("Done at once.")], reward: finish ? 1 : 0, finished: finish }),
});

export const slow = defineEnvironment({
  name: "slow",
  description:
    "A slow tool: `wait` takes 25 s by default (up to 120 s), so SSE keep-alive pings show while it " +
    "runs; `fast` answers at once.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "Call `wait` and watch the stream: a ping arrives every 10 seconds until the result.",
  tools: { wait, fast },
});
