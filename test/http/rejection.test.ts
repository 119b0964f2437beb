import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import {
  answerErrors,
  type ListenerEnv,
  Rejection,
  refuseOtherMethods,
  refuseUnknownPath,
} from "../../src/http/rejection";
import { capturingLogger } from "../support/capturing-logger";

function app() {
  const { log, lines } = capturingLogger("error");
  const hono = new Hono<ListenerEnv>();
  hono.onError(answerErrors(log));
  hono.notFound(refuseUnknownPath);
  hono.use(refuseOtherMethods(hono));
  hono.post("/review", () => {
    throw new Rejection(400, "not a review", { details: ["kind: wrong"] });
  });
  hono.get("/bug", () => {
    throw new TypeError("a bug");
  });
  return { hono, lines };
}

describe("one error path", () => {
  test("a Rejection is its status and a JSON body with what was wrong", async () => {
    const response = await app().hono.request("/review", { method: "POST" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "not a review", details: ["kind: wrong"] });
  });

  test("another method on a routed path is a 405 naming the allowed ones", async () => {
    const response = await app().hono.request("/review", { method: "PUT" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toEqual({
      error: "method PUT not allowed on /review; use POST",
    });
  });

  test("an unknown path is a 404 naming it", async () => {
    const response = await app().hono.request("/elsewhere");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "no such path: /elsewhere" });
  });

  test("anything else thrown is logged and a 500 that says nothing more", async () => {
    const { hono, lines } = app();
    const response = await hono.request("/bug");
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "internal error" });
    expect(lines.at(-1)).toMatchObject({ msg: "unhandled error", path: "/bug" });
  });
});
