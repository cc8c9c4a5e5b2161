// The SDK as the package exports it (`ors-playground/sdk`, see package.json "exports"): the authoring
// API plus zod's `z`, so an environment module outside this repository needs no other dependency and
// builds its schemas with the very zod the host converts to JSON Schema; and `defineMcpEnvironment`,
// an MCP server as an environment (lib/mcp/environment.ts: Node only, as every environment module is).

export { z } from "zod";
export type { McpContent } from "../../mcp/content";
export {
  defineMcpEnvironment,
  type McpEnvironmentDefinition,
  type McpServerSpec,
  type McpSessionState,
  type McpToolCall,
} from "../../mcp/environment";
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
