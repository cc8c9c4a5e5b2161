// The one HTTP error module (lib/ors/protocol/http-error.ts): what an error answer looks like on the
// wire, and how every reader gets its detail back, including from bodies that are not ORS errors.
import { describe, expect, it } from "vitest";
import {
  errorBody,
  errorResponse,
  OrsError,
  readErrorBody,
  readErrorDetail,
  toResponse,
} from "@/lib/ors/protocol";
import { apiError } from "@/lib/ui/api-error";

describe("errorResponse", () => {
  it("answers {detail} as uncached JSON with the status", async () => {
    const res = errorResponse(404, 'no trajectory with id "x"');
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe('{"detail":"no trajectory with id \\"x\\""}');
  });

  it("keeps extra headers, but never lets them change the content type", async () => {
    const res = errorResponse(405, "use GET", { allow: "GET", "content-type": "text/html" });
    expect(res.headers.get("allow")).toBe("GET");
    expect(res.headers.get("content-type")).toBe("application/json");
  });

  it("puts extra fields beside the detail", async () => {
    const res = errorResponse(502, "down", undefined, { kind: "unreachable" });
    expect(await res.json()).toEqual({ detail: "down", kind: "unreachable" });
  });
});

describe("OrsError", () => {
  it("becomes its answer with its own headers", async () => {
    const res = toResponse(new OrsError(429, "too many sessions", { "retry-after": "3" }));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(await res.json()).toEqual({ detail: "too many sessions" });
  });

  it("serializes as its body", () => {
    expect(JSON.stringify(new OrsError(400, "bad"))).toBe(errorBody("bad"));
  });
});

describe("readErrorBody / readErrorDetail", () => {
  it("round-trips what errorBody writes, awkward text included", () => {
    for (const d of ["", 'quote " and \\', "line\nbreak", "ünïcödé ✓", "</script>"])
      expect(readErrorDetail(errorBody(d))).toBe(d);
  });

  it("turns FastAPI's validation list into text", () => {
    const body = JSON.stringify({ detail: [{ loc: ["body", "task_spec"], msg: "field required" }] });
    expect(readErrorDetail(body)).toBe("body.task_spec: field required");
  });

  it("says null for what is not an ORS error body, and keeps the other fields", () => {
    for (const body of ["", "<html>502</html>", "[1]", "null", '{"error":"x"}'])
      expect(readErrorDetail(body)).toBeNull();
    expect(readErrorBody('{"error":"x"}').fields).toEqual({ error: "x" });
    expect(readErrorBody('{"detail":"d","errors":["a"]}')).toEqual({
      detail: "d",
      fields: { detail: "d", errors: ["a"] },
    });
  });

  it("is what the UI's ApiError reads: detail, errors and kind", async () => {
    const e = await apiError(
      errorResponse(400, "nothing imported", undefined, { errors: ["a", "b"], kind: "k" }),
    );
    expect([e.status, e.detail, e.errors, e.kind]).toEqual([400, "nothing imported", ["a", "b"], "k"]);
    const plain = await apiError(new Response("<html>", { status: 502, statusText: "Bad Gateway" }));
    expect(plain.detail).toBe("502 Bad Gateway");
  });
});
