// `secret`: reads the `API_TOKEN` secret passed to /create (body `secrets` or the `X-Secrets`
// header). It reports only whether the secret is there and its length — never its value.
import { defineEnvironment, defineTool, text } from "@/lib/ors/sdk";

export const SECRET_NAME = "API_TOKEN";

const whoami = defineTool({
  description:
    `Report whether the ${SECRET_NAME} secret was given to this session and how long it is ` +
    "(the value itself is never shown). Reward 1 when it is present.",
  run: (_input, { secrets }) => {
    const value = secrets[SECRET_NAME];
    const present = typeof value === "string" && value.length > 0;
    const names = Object.keys(secrets).sort();
    return {
      blocks: [
        text(
          present
            ? `${SECRET_NAME} is present (${value.length} characters).`
            : `${SECRET_NAME} is missing. Pass it in the /create body "secrets" or the X-Secrets header.`,
        ),
      ],
      reward: present ? 1 : 0,
      finished: true,
      metadata: { present, length: present ? value.length : 0, secretNames: names },
    };
  },
});

export const secret = defineEnvironment({
  name: "secret",
  description:
    `Reads the ${SECRET_NAME} secret given at /create; \`whoami\` tells whether it is present and its ` +
    "length, never the value.",
  splits: ["train"],
  listTasks: () => [{ id: 0 }],
  getPrompt: () => `Call \`whoami\` to check that the ${SECRET_NAME} secret reached the environment.`,
  tools: { whoami },
});
