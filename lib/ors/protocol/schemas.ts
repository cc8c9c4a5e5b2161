// Zod schemas of every ORS wire type (spec: ors-http-api.txt "Data Types"), strict like the
// reference SDK's `extra="forbid"` for what we accept and serve; lenient `*ReadSchema` variants for
// answers we read from other servers (unknown fields dropped, unknown block types kept visible).
// Isomorphic: imported by the host, the client, the relay, the UI and tests.
import { z } from "zod";

export const jsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof jsonObjectSchema>;

export const textBlockSchema = z.strictObject({
  text: z.string(),
  detail: jsonObjectSchema.nullable().optional(),
  type: z.literal("text"),
});
export type TextBlock = z.infer<typeof textBlockSchema>;

export const imageBlockSchema = z.strictObject({
  data: z.string(),
  mimeType: z.string(),
  detail: jsonObjectSchema.nullable().optional(),
  type: z.literal("image"),
});
export type ImageBlock = z.infer<typeof imageBlockSchema>;

export const blockSchema = z.discriminatedUnion("type", [textBlockSchema, imageBlockSchema]);
export type Block = z.infer<typeof blockSchema>;

export const blocksSchema = z.array(blockSchema);

export const toolOutputSchema = z.strictObject({
  blocks: blocksSchema,
  metadata: jsonObjectSchema.nullable().optional(),
  reward: z.number().nullable().optional(),
  finished: z.boolean().default(false),
});
export type ToolOutput = z.infer<typeof toolOutputSchema>;

export const runToolSuccessSchema = z.strictObject({ ok: z.literal(true), output: toolOutputSchema });
export const runToolErrorSchema = z.strictObject({ ok: z.literal(false), error: z.string() });
export const runToolOutputSchema = z.discriminatedUnion("ok", [runToolSuccessSchema, runToolErrorSchema]);
export type RunToolSuccess = z.infer<typeof runToolSuccessSchema>;
export type RunToolError = z.infer<typeof runToolErrorSchema>;
export type RunToolOutput = z.infer<typeof runToolOutputSchema>;

export const toolSpecSchema = z.strictObject({
  name: z.string(),
  description: z.string(),
  input_schema: jsonObjectSchema.nullable().optional(),
});
export type ToolSpec = z.infer<typeof toolSpecSchema>;

export const listToolsOutputSchema = z.strictObject({ tools: z.array(toolSpecSchema) });
export type ListToolsOutput = z.infer<typeof listToolsOutputSchema>;

export const toolCallSchema = z.strictObject({
  name: z.string(),
  input: jsonObjectSchema,
  task_id: z.string().nullable().optional(),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const secretsSchema = z.record(z.string(), z.string());
export type Secrets = z.infer<typeof secretsSchema>;

/** The body of POST /create. Exactly one of `task_spec` or `split` + `index`. */
export const createRequestSchema = z
  .strictObject({
    env_name: z.string().nullable().optional(),
    task_spec: jsonObjectSchema.nullable().optional(),
    split: z.string().nullable().optional(),
    index: z.number().int().nullable().optional(),
    secrets: secretsSchema.nullable().optional(),
  })
  .superRefine((v, ctx) => {
    const hasSpec = v.task_spec != null;
    const hasSplit = v.split != null;
    const hasIndex = v.index != null;
    if (hasSplit !== hasIndex) {
      ctx.addIssue({
        code: "custom",
        path: [hasSplit ? "index" : "split"],
        message: "split and index must be provided together",
      });
    } else if (hasSpec === hasSplit) {
      ctx.addIssue({
        code: "custom",
        path: ["task_spec"],
        message: "provide either task_spec or both split and index, not both or neither",
      });
    }
  });
export type CreateRequest = z.infer<typeof createRequestSchema>;

/**
 * `/create` fields of the OpenReward platform's own client that an ORS host does not take, and what
 * each asks for: a host refuses them with a detail saying so (not a bare "unrecognized key").
 */
export const PLATFORM_ONLY_CREATE_FIELDS: Readonly<Record<string, string>> = {
  toolset_name: "a built-in toolset bound to the session, the client's toolset= argument",
};

export const splitTypeSchema = z.enum(["train", "validation", "test"]);
export type SplitType = z.infer<typeof splitTypeSchema>;
export const splitSchema = z.strictObject({ name: z.string(), type: splitTypeSchema });
export type Split = z.infer<typeof splitSchema>;
export const splitsSchema = z.array(splitSchema);

export const listTasksRequestSchema = z.strictObject({ split: z.string() });
export const numTasksRequestSchema = z.strictObject({ split: z.string() });
export const getTaskRequestSchema = z.strictObject({ split: z.string(), index: z.number().int() });
export const getTaskRangeRequestSchema = z.strictObject({
  split: z.string(),
  start: z.number().int().nullable().optional(),
  stop: z.number().int().nullable().optional(),
});
export type GetTaskRangeRequest = z.infer<typeof getTaskRangeRequestSchema>;

export const healthResponseSchema = z.object({ status: z.string() });
export const listEnvironmentsResponseSchema = z.array(z.string());

// ---- Lenient reading of answers ("strict in what we send, lenient in what we read") ----
// A newer or foreign server may add fields; we drop what we do not know and refuse only what we
// cannot use. The types are the same as the strict schemas' (unknown keys are stripped).

const textBlockRead = z.object({
  text: z.string(),
  detail: jsonObjectSchema.nullable().optional(),
  type: z.literal("text"),
});
const imageBlockRead = z.object({
  data: z.string(),
  mimeType: z.string(),
  detail: jsonObjectSchema.nullable().optional(),
  type: z.literal("image"),
});

/**
 * A block as read from a server. A block of a type this app does not show (audio, a resource ...)
 * becomes a text block saying so, with the original type in `detail`, instead of failing the
 * whole answer.
 */
export const blockReadSchema: z.ZodType<Block> = z.union([
  z.discriminatedUnion("type", [textBlockRead, imageBlockRead]),
  z
    .object({ type: z.string() })
    .loose()
    .refine((b) => b.type !== "text" && b.type !== "image", { message: "malformed text or image block" })
    .transform(
      (b): Block => ({
        type: "text",
        text: `[a block of type ${JSON.stringify(b.type)}: not shown here (text and image blocks are)]`,
        detail: { unsupported_block_type: b.type },
      }),
    ),
]);
export const blocksReadSchema = z.array(blockReadSchema);

export const toolOutputReadSchema = z.object({
  blocks: blocksReadSchema,
  metadata: jsonObjectSchema.nullable().optional(),
  reward: z.number().nullable().optional(),
  finished: z
    .boolean()
    .nullable()
    .optional()
    .transform((f) => f ?? false),
});
export const runToolOutputReadSchema: z.ZodType<RunToolOutput> = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), output: toolOutputReadSchema }),
  z.object({ ok: z.literal(false), error: z.string() }),
]);
export const toolSpecReadSchema = z.object({
  name: z.string(),
  description: z
    .string()
    .nullable()
    .optional()
    .transform((d) => d ?? ""),
  input_schema: jsonObjectSchema.nullable().optional(),
});
export const listToolsOutputReadSchema = z.object({ tools: z.array(toolSpecReadSchema) });
/** Splits as read: a server may use split types beyond the spec's three; they read as `validation`. */
export const splitReadSchema = z.object({
  name: z.string(),
  type: z
    .string()
    .transform((t): SplitType => (splitTypeSchema.safeParse(t).success ? (t as SplitType) : "validation")),
});
export const splitsReadSchema = z.array(splitReadSchema);
export const tasksResponseSchema = z.object({ tasks: z.array(jsonObjectSchema), env_name: z.string() });
export const numTasksResponseSchema = z.object({ num_tasks: z.number().int().nonnegative() });
// `env_name` in /task and /task_range: the reference server and ours send it (the OpenReward client
// reads it); the spec's examples leave it out, so it is optional when read.
export const taskResponseSchema = z.object({ task: jsonObjectSchema, env_name: z.string().optional() });
export const taskRangeResponseSchema = z.object({
  tasks: z.array(jsonObjectSchema),
  env_name: z.string().optional(),
});
export const sidResponseSchema = z.object({ sid: z.string() });
export const statusResponseSchema = z.object({ status: z.string() });
export const errorBodySchema = z.object({ detail: z.unknown() });

/**
 * Renders a zod error as one readable string naming each offending field, e.g.
 * `index: expected an integer; split: required`. Used for 400 `detail`s and tool input errors.
 */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.map(String).join(".") : "body";
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}
