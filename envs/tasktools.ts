// `tasktools`: task-specific tools. Every task has the shared `look` tool; each task unlocks its
// own `open_door_<color>` tool, and some tasks also a `lookup` tool (served by /task_tools only).
import { z } from "zod";
import { defineEnvironment, defineTool, type Tool, type ToolContext, text } from "@/lib/ors/sdk";

export const DOOR_COLORS = ["red", "green", "blue", "yellow"] as const;
export type DoorColor = (typeof DOOR_COLORS)[number];
export type TasktoolsTask = { room: number; door: DoorColor; code: string; lookup: boolean };
type Ctx = ToolContext<TasktoolsTask>;

const TASKS: TasktoolsTask[] = Array.from({ length: 8 }, (_, i) => ({
  room: i + 1,
  door: DOOR_COLORS[i % DOOR_COLORS.length]!,
  code: String(1000 + ((i * 7919) % 9000)),
  lookup: i % 2 === 0,
}));

const look = defineTool({
  description: "Look around the room: describes the door and whether a code book is on the table.",
  run: (_input, { task }: Ctx) => ({
    blocks: [
      text(
        `Room ${task.room}: there is a ${task.door} door with a keypad.` +
          (task.lookup ? " A code book lies on the table (use `lookup`)." : " The table is empty."),
      ),
    ],
  }),
});

function openDoorTool(color: DoorColor): Tool<TasktoolsTask> {
  return defineTool({
    description: `Type a code into the keypad of the ${color} door. The right code opens it (reward 1, episode ends).`,
    input: z.object({ code: z.string().describe("The 4-digit door code") }),
    run: ({ code }, { task }: Ctx) => {
      const ok = code.trim() === task.code;
      return {
        blocks: [text(ok ? `The ${color} door opens. You are out!` : "The keypad blinks red: wrong code.")],
        reward: ok ? 1 : 0,
        finished: ok,
      };
    },
  });
}

const OPEN_DOOR = Object.fromEntries(DOOR_COLORS.map((c) => [c, openDoorTool(c)])) as Record<
  DoorColor,
  Tool<TasktoolsTask>
>;

const lookup = defineTool({
  description: "Read the code book on the table: it gives the door code. Only in rooms that have one.",
  run: (_input, { task }: Ctx) => ({ blocks: [text(`The code book says: ${task.code}`)] }),
});

export const tasktools = defineEnvironment<TasktoolsTask>({
  name: "tasktools",
  description:
    "Task-specific tools: each room unlocks its own `open_door_<color>` tool, and half of them a " +
    "`lookup` tool; only `look` is shared. Use /task_tools in a session to see them all.",
  splits: ["train"],
  listTasks: () => TASKS,
  getPrompt: ({ task }) =>
    `You are locked in room ${task.room}. Find the code and open the door. ` +
    "List this session's tools (task_tools): the door's tool is specific to this room.",
  tools: { look },
  taskTools: ({ task }) => ({
    [`open_door_${task.door}`]: OPEN_DOOR[task.door],
    ...(task.lookup ? { lookup } : {}),
  }),
});
