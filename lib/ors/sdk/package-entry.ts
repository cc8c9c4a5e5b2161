// The SDK as the package exports it (`ors-playground/sdk`, see package.json "exports"): the authoring
// API plus zod's `z`, so an environment module outside this repository needs no other dependency and
// builds its schemas with the very zod the host converts to JSON Schema.

export { z } from "zod";
export type {
  AnyEnvironment,
  AnyTool,
  Block,
  Environment,
  EnvironmentDefinition,
  ImageBlock,
  JsonObject,
  JsonSchema,
  SessionContext,
  Split,
  SplitType,
  TaskSource,
  TextBlock,
  Tool,
  ToolContext,
  ToolDefinition,
  ToolResult,
} from "./index";
export { defineEnvironment, defineTool, image, sleep, text } from "./index";
