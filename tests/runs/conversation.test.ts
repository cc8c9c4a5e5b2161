// An episode as a chat (lib/runs/conversation.ts), the tools as function tools (lib/runs/tool-schema.ts)
// and the annotations that carry run tags and agent marks (lib/relay/annotations.ts).
import { describe, expect, it } from "vitest";
import { functionNames, functionTools, inlineRefs } from "@/lib/ors/protocol/tool-schema";
import {
  decodeAnnotation,
  encodeAgent,
  encodeRunTag,
  MAX_AGENT_MESSAGE_CHARS,
  readAgent,
  readRunTag,
} from "@/lib/relay/annotations";
import { chatMessages, nextTurnNumber, transcriptOf } from "@/lib/runs/conversation";
import { toModelMessages } from "@/lib/runs/model-policy";
import { step } from "../episodes/helpers";

describe("an episode as a chat", () => {
  const agent = (turn: number, call_id: string, more = {}) => ({
    policy: "model",
    model: "m",
    turn,
    call_id,
    ...more,
  });
  const steps = [
    step(1, {
      tool: "hint",
      input: {},
      agent: agent(1, "a", { message: "Let me look.", usage: { prompt_tokens: 5, completion_tokens: 1 } }),
    }),
    step(2, {
      tool: "guess",
      input: { number: 50 },
      agent: agent(1, "b"),
      blocks: [{ type: "text", text: "higher" }],
    }),
    // A person's step: a turn of its own, with an id of its own.
    step(3, {
      tool: "guess",
      input: { number: 75 },
      blocks: [
        { type: "text", text: "see" },
        { type: "image", data: "AAA", mimeType: "image/png" },
      ],
    }),
    step(4, {
      tool: "guess",
      input: { number: 80 },
      ok: false,
      error: "boom",
      blocks: [],
      agent: agent(3, "c"),
    }),
    step(5, { tool: "guess", input: { number: 1 }, after_end: true, agent: agent(4, "d") }),
  ];

  it("groups a turn's calls, gives a person's calls ids, leaves out what came after the end", () => {
    const turns = transcriptOf({ steps });
    expect(turns.map((t) => [t.message, t.calls.map((c) => c.id)])).toEqual([
      ["Let me look.", ["a", "b"]],
      [null, ["call_3"]],
      [null, ["c"]],
    ]);
    expect(turns[0]!.usage).toEqual({ promptTokens: 5, completionTokens: 1 });
    expect(nextTurnNumber({ steps })).toBe(5);
    expect(nextTurnNumber({ steps: [] })).toBe(1);
  });

  it("builds OpenAI messages: the prompt, each turn with its tool answers, images after them, errors said", () => {
    const m = chatMessages([{ type: "text", text: "Guess." }], transcriptOf({ steps }), {
      system: "Be brief.",
      end: { reason: "no_tool_call", message: "I give up." },
    });
    expect(m).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Guess." },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [
          { id: "a", type: "function", function: { name: "hint", arguments: "{}" } },
          { id: "b", type: "function", function: { name: "guess", arguments: '{"number":50}' } },
        ],
      },
      { role: "tool", tool_call_id: "a", content: "observation 1" },
      { role: "tool", tool_call_id: "b", content: "higher" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_3", type: "function", function: { name: "guess", arguments: '{"number":75}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_3", content: "see\n\n[1 image attached below]" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by guess (call_3):" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAA" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "guess", arguments: '{"number":80}' } }],
      },
      { role: "tool", tool_call_id: "c", content: "Error: boom" },
      { role: "assistant", content: "I give up." },
    ]);
    // As the AI SDK's messages: tool results named after their calls, images as image parts.
    const sdk = toModelMessages(m);
    expect(sdk[4]).toEqual({
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "b",
          toolName: "guess",
          output: { type: "text", value: "higher" },
        },
      ],
    });
    expect(sdk[7]).toMatchObject({
      role: "user",
      content: [{ type: "text" }, { type: "image", image: "AAA", mediaType: "image/png" }],
    });
  });

  it("puts a prompt with images in parts", () => {
    expect(
      chatMessages(
        [
          { type: "text", text: "Look:" },
          { type: "image", data: "QQ", mimeType: "image/jpeg" },
        ],
        [],
      ),
    ).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,QQ" } },
        ],
      },
    ]);
  });
});

describe("tools as function tools", () => {
  it("inlines $refs (with the keywords beside them), keeps a recursive one with its definition", () => {
    const schema = {
      $defs: {
        Slot: { type: "object", properties: { crop: { type: "string" } }, title: "Slot" },
        Tree: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } },
        },
      },
      type: "object",
      properties: { a: { $ref: "#/$defs/Slot", description: "the first" }, t: { $ref: "#/$defs/Tree" } },
    };
    expect(inlineRefs(schema)).toEqual({
      type: "object",
      properties: {
        a: {
          type: "object",
          properties: { crop: { type: "string" } },
          title: "Slot",
          description: "the first",
        },
        t: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } },
      },
      $defs: {
        Tree: {
          type: "object",
          properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } },
        },
      },
    });
  });

  it("gives every tool an object schema and a valid, unique name", () => {
    const tools = [
      { name: "submit", description: "Answer", input_schema: null },
      { name: "do.it", description: "", input_schema: { properties: { x: { type: "integer" } } } },
      { name: "do_it", description: "", input_schema: { type: "object" } },
    ];
    const names = functionNames(tools);
    expect(tools.map((t) => names.toFunction(t.name))).toEqual(["submit", "do_it", "do_it_2"]);
    expect(names.toTool("do_it")).toBe("do.it");
    expect(names.toTool("do_it_2")).toBe("do_it");
    expect(functionTools(tools).map((f) => f.function.parameters)).toEqual([
      { type: "object", properties: {} },
      { type: "object", properties: { x: { type: "integer" } } },
      { type: "object" },
    ]);
  });
});

describe("annotation headers", () => {
  it("carry a run tag and an agent mark, Unicode included, and refuse what is not theirs", () => {
    const tag = { id: "r123", task_index: 4, repeat: 1 };
    expect(readRunTag(decodeAnnotation(encodeRunTag(tag)))).toEqual(tag);
    const agent = { policy: "model", turn: 2, call_id: "c1", message: "42 — sûr ✓" };
    const header = encodeAgent(agent);
    expect(header).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(readAgent(decodeAnnotation(header))).toEqual(agent);
    expect(decodeAnnotation(null)).toBeUndefined();
    expect(decodeAnnotation("not base64!")).toBeUndefined();
    expect(decodeAnnotation("x".repeat(70_000))).toBeUndefined();
    expect(readAgent({ policy: "model", turn: 0, call_id: "c" })).toBeNull();
    expect(readRunTag({ id: "bad id", task_index: 0, repeat: 0 })).toBeNull();
    const long = readAgent(
      decodeAnnotation(encodeAgent({ ...agent, message: "y".repeat(MAX_AGENT_MESSAGE_CHARS + 10) })),
    )!;
    expect(long.message).toMatch(/… \[cut: 16010 characters\]$/);
  });
});
