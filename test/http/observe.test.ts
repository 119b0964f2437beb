import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { measureRequests, warnOnRejection } from "../../src/http/observe";
import {
  answerErrors,
  type ListenerEnv,
  Rejection,
  refuseOtherMethods,
  refuseUnknownPath,
} from "../../src/http/rejection";
import { capturingLogger } from "../support/capturing-logger";

function observedApp() {
  const { log, lines } = capturingLogger("warn");
  const counted: string[] = [];
  const timed: string[] = [];
  const decided: string[] = [];
  const inFlight = { now: 0, most: 0 };
  const app = new Hono<ListenerEnv>();
  app.onError(answerErrors(log));
  app.notFound(refuseUnknownPath);
  app.use(
    measureRequests(
      {
        inFlight: {
          inc: () => {
            inFlight.now++;
            inFlight.most = Math.max(inFlight.most, inFlight.now);
          },
          dec: () => inFlight.now--,
        },
        countResponse: (path, status) => counted.push(`${path} ${status}`),
        reviewDuration: (path) =>
          path === "/ok" || path === "/refused"
            ? { observe: (seconds) => timed.push(`${path} ${seconds >= 0}`) }
            : undefined,
        countDecision: (path, { result, reason }) => decided.push(`${path} ${result}/${reason}`),
      },
      warnOnRejection(log),
    ),
  );
  app.use(refuseOtherMethods(app));
  app.get("/ok", (c) => c.text("ok"));
  app.post("/review", (c) => {
    c.set("reviewDecision", { result: "deny", reason: "scale_down" });
    return c.text("answered");
  });
  app.post("/refused", () => {
    throw new Rejection(415, "wrong type");
  });
  return { app, lines, counted, timed, decided, inFlight };
}

const bindings = {
  requestIP: () => ({ address: "10.0.0.7", port: 4242, family: "IPv4" as const }),
};

describe("observing the admission listener", () => {
  test("every answer is counted, refusals and unknown paths included, and nothing stays in flight", async () => {
    const { app, counted, inFlight } = observedApp();
    await app.request("/ok");
    await app.request("/refused", { method: "POST" });
    await app.request("/nowhere");
    expect(counted).toEqual(["/ok 200", "/refused 415", "/nowhere 404"]);
    expect(inFlight).toEqual({ now: 0, most: 1 });
  });

  test("the decision a review keeps on the context is counted once, by path", async () => {
    const { app, decided } = observedApp();
    await app.request("/review", { method: "POST" });
    await app.request("/ok");
    expect(decided).toEqual(["/review deny/scale_down"]);
  });

  test("only an answered review (200 on a path with a duration) is timed", async () => {
    const { app, timed } = observedApp();
    await app.request("/ok");
    await app.request("/refused", { method: "POST" });
    await app.request("/nowhere");
    expect(timed).toEqual(["/ok true"]);
  });

  test("a 4xx is one warn line with its reason and the client; a 200 is none", async () => {
    const { app, lines } = observedApp();
    await app.request("/ok", {}, bindings);
    await app.request("/refused", { method: "POST" }, bindings);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: "request rejected",
      method: "POST",
      path: "/refused",
      status: 415,
      reason: "wrong type",
      client: "10.0.0.7:4242",
    });
  });

  test("a wrong method is one warn line, for its 405", async () => {
    const { app, lines, counted } = observedApp();
    await app.request("/refused", { method: "GET" }, bindings);
    expect(counted).toEqual(["/refused 405"]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      status: 405,
      reason: "method GET not allowed on /refused; use POST",
    });
  });
});
