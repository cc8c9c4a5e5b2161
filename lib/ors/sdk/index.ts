// The public surface of the environment SDK. Environments import from here only.
export type { Block, ImageBlock, JsonObject, Split, SplitType, TextBlock } from "../protocol/schemas";
/** Waits `ms`, or rejects as soon as the call's `signal` aborts: a long tool stops when its caller goes. */
export { sleep } from "../protocol/sleep";
export {
  type AnyEnvironment,
  type AnyTool,
  defineEnvironment,
  defineTool,
  type Environment,
  type EnvironmentDefinition,
  image,
  type JsonSchema,
  type SessionContext,
  type TaskSource,
  type Tool,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
  text,
} from "./define";
