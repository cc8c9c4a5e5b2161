// The floor of the per-episode benchmark (`npm run bench -- --spawn floor`): a node:http server that
// reads each request and answers the episode's five requests (and the plan's discovery requests)
// with fixed bytes, no ORS logic at all. What any Node ORS host costs at the least per episode.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

const json = (s: string) => ({ type: "application/json", body: Buffer.from(s) });
const ANSWERS: Record<string, { type: string; body: Buffer }> = {
  "/health": json('{"status":"ok"}'),
  "/math/tools": json(
    '{"tools":[{"name":"submit","description":"Submit","input_schema":{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}}]}',
  ),
  "/math/num_tasks": json('{"num_tasks":1}'),
  "/math/task_range": json('{"tasks":[{"question":"What is 2 + 2?","answer":"4"}],"env_name":"math"}'),
  "/create_session": json('{"sid":"00000000-0000-4000-8000-000000000000"}'),
  "/create": json('{"sid":"00000000-0000-4000-8000-000000000000"}'),
  "/math/prompt": json('[{"text":"What is 2 + 2?","detail":null,"type":"text"}]'),
  "/math/call": {
    type: "text/event-stream; charset=utf-8",
    body: Buffer.from(
      'event: task_id\ndata: 0123456789abcdef0123456789abcdef\n\nevent: end\ndata: {"ok":true,"output":{"blocks":[{"text":"Correct!","detail":null,"type":"text"}],"metadata":null,"reward":1,"finished":true}}\n\n',
    ),
  },
  "/delete": json('{"sid":"00000000-0000-4000-8000-000000000000"}'),
};
const NOT_FOUND = json('{"detail":"Not found"}');

function answer(req: IncomingMessage, res: ServerResponse): void {
  req.on("data", () => {});
  req.on("end", () => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const a = ANSWERS[q < 0 ? url : url.slice(0, q)];
    const { type, body } = a ?? NOT_FOUND;
    res.writeHead(a ? 200 : 404, { "content-type": type, "content-length": body.length });
    res.end(body);
  });
}

const port = Number(process.argv[process.argv.indexOf("--port") + 1] ?? 0);
const server = createServer({ noDelay: true, keepAliveTimeout: 60_000 }, answer);
server.listen(port, "127.0.0.1", () => {
  console.log(`floor listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
