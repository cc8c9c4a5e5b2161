// `brokensetup`: an environment whose setup always fails, so the host's reporting of a failed
// setup (to the requests waiting on it) can be seen and tested.
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

export const BROKENSETUP_MESSAGE =
  "brokensetup: setup failed on purpose (this environment demonstrates how a failed setup is reported)";

const noop = defineTool({
  description: "Does nothing. Never reachable: the session's setup fails first.",
  run: () => ({ blocks: [text("noop")] }),
});

export const brokensetup = defineEnvironment({
  name: "brokensetup",
  description: "Its setup always throws, so every episode fails at /create time: shows a failed setup.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => "You should never see this prompt: setup fails.",
  setup: async () => {
    throw new Error(BROKENSETUP_MESSAGE);
  },
  tools: { noop },
});
