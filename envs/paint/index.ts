// `paint`: an environment with images. The prompt shows a PNG drawn here (the target shape in
// grey) and asks for that shape in a given colour; `draw` answers with a PNG of the drawing.
import { z } from "zod";
import { defineEnvironment, defineTool, image, type ToolContext, text } from "@/lib/ors/sdk";
import { drawShapePng, type Shape } from "./png";

export type PaintTask = { shape: Shape; color: string; colorName: string };
type Ctx = ToolContext<PaintTask>;

const SHAPES: Shape[] = ["circle", "square", "triangle"];
const COLORS: Array<[string, string]> = [
  ["red", "#e53935"],
  ["green", "#43a047"],
  ["blue", "#1e88e5"],
  ["orange", "#fb8c00"],
];

const TASKS: PaintTask[] = SHAPES.flatMap((shape) =>
  COLORS.map(([colorName, color]) => ({ shape, color, colorName })),
);

const draw = defineTool({
  description:
    "Draw one filled shape on a white canvas. Returns the picture as a PNG. Reward 1 and the end " +
    "of the episode when the shape is the one asked for; otherwise reward 0 and you may try again.",
  input: z.object({
    shape: z.enum(["circle", "square", "triangle"]).describe("The shape to draw"),
    color: z
      .string()
      .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, "a hex colour like #ff0000 or #f00")
      .describe("Fill colour as a hex string, e.g. #ff0000"),
    size: z.number().int().min(16).max(256).default(96).describe("Canvas width and height in pixels"),
  }),
  run: ({ shape, color, size }, { task }: Ctx) => {
    const png = drawShapePng(shape, color, size).toString("base64");
    const match = shape === task.shape;
    return {
      blocks: [
        image(png, "image/png"),
        text(
          match
            ? `A ${shape} — that is the shape asked for.`
            : `A ${shape}, but a ${task.shape} was asked for.`,
        ),
      ],
      reward: match ? 1 : 0,
      finished: match,
      metadata: { shape, color, size, colorMatches: color.toLowerCase() === task.color },
    };
  },
});

export const paint = defineEnvironment<PaintTask>({
  name: "paint",
  description:
    "Images both ways: the prompt holds a PNG of the target shape; the `draw` tool returns a PNG of " +
    "what you drew. Reward 1 for the right shape. 12 tasks (3 shapes × 4 colours).",
  splits: ["train"],
  listTasks: () => TASKS,
  getPrompt: ({ task }) => [
    text(
      `Draw a ${task.colorName} ${task.shape} (colour ${task.color}) with the \`draw\` tool. Here is the shape:`,
    ),
    image(drawShapePng(task.shape, "#9e9e9e", 64).toString("base64"), "image/png"),
  ],
  tools: { draw },
});
