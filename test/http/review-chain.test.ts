import { describe, expect, test } from "bun:test";
import type { Hono } from "hono";
import { denied, errored, skipped } from "../../src/contract/verdict";
import { collectViolations, violation } from "../../src/contract/violations";
import {
  type Decisions,
  ENDPOINT_KEYS,
  ENDPOINTS,
  type EndpointKey,
  operationsOf,
  RULE_REMEDIES,
  resultReasons,
} from "../../src/endpoints";
import type { CocoonSetRuleId } from "../../src/endpoints/cocoonset/rules";
import { DENY_EVERYWHERE, type Enforcement } from "../../src/endpoints/enforcement";
import type { ListenerEnv } from "../../src/http/rejection";
import { admissionApp } from "../../src/http/review-chain";
import type { Logger } from "../../src/observability/logger";
import { admissionDecisions } from "../../src/observability/metrics";
import { admissionRequest, admissionReview } from "../support/admission-review";
import { capturingLogger } from "../support/capturing-logger";

/** The rule errors are logged here, and asserted on, instead of printed. */
const { log, lines: errorLines } = capturingLogger("error");

const PATH = ENDPOINTS.cocoonSet.path;

/** The admission app with `decide` behind /validate-cocoonset. */
function appWith(
  decide: Decisions["cocoonSet"],
  logger: Logger = log,
  enforcement: Enforcement = DENY_EVERYWHERE,
) {
  const unused = async () => skipped("operation");
  const others = Object.fromEntries(ENDPOINT_KEYS.map((endpoint) => [endpoint, unused]));
  return admissionApp(
    { ...(others as Record<EndpointKey, typeof unused>), cocoonSet: decide },
    { ready: true },
    logger,
    { maxRequestBytes: 1 << 20, bodyReadTimeoutMs: 2000, enforcement },
  );
}

async function send(app: Hono<ListenerEnv>, body: unknown) {
  const response = await app.request(PATH, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const review = (apiVersion?: string) => admissionReview({ apiVersion, uid: "uid-1" });

async function samples(result: string, reason: string): Promise<number> {
  const metric = await admissionDecisions.counter.get();
  return (
    metric.values.find(
      (value) =>
        value.labels.handler === "validate_cocoonset" &&
        value.labels.result === result &&
        value.labels.reason === reason,
    )?.value ?? 0
  );
}

describe("the review routes", () => {
  test("a denial carries 403 Forbidden and the cocoon-webhook prefix, in the sent apiVersion", async () => {
    const answer = await send(
      appWith(async () => denied("invalid_spec", "spec.x: wrong")),
      review("admission.k8s.io/v1beta1"),
    );
    expect(answer).toEqual({
      status: 200,
      body: {
        apiVersion: "admission.k8s.io/v1beta1",
        kind: "AdmissionReview",
        response: {
          uid: "uid-1",
          allowed: false,
          status: { code: 403, reason: "Forbidden", message: "cocoon-webhook: spec.x: wrong" },
          auditAnnotations: {
            endpoint: "validate-cocoonset",
            decision: "deny",
            reason: "invalid_spec",
          },
        },
      },
    });
  });

  test("records exactly one sample with the verdict's result and reason", async () => {
    const before = await samples("skipped", "no_change");
    await send(
      appWith(async () => skipped("no_change")),
      review(),
    );
    expect(await samples("skipped", "no_change")).toBe(before + 1);
  });

  test("an operation the endpoint does not examine is skipped/operation without reaching the handler", async () => {
    expect(operationsOf("cocoonSet")).not.toContain("DELETE");
    let calls = 0;
    const app = appWith(async () => {
      calls++;
      return denied("invalid_spec", "examined");
    });
    const before = await samples("skipped", "operation");
    const answer = await send(app, {
      ...review(),
      request: admissionRequest({ uid: "uid-1", operation: "DELETE" }),
    });
    expect(answer.body.response).toEqual({ uid: "uid-1", allowed: true });
    expect(calls).toBe(0);
    expect(await samples("skipped", "operation")).toBe(before + 1);
  });

  test("every result and reason the table lists for the endpoint is a series from the start", async () => {
    appWith(async () => skipped("no_change"));
    const series = (await admissionDecisions.counter.get()).values
      .filter((value) => value.labels.handler === "validate_cocoonset")
      .map((value) => `${value.labels.result}/${value.labels.reason}`);
    for (const { result, reason } of resultReasons("cocoonSet")) {
      expect(series).toContain(`${result}/${reason}`);
    }
  });

  test("a rule that throws fails closed as error/internal instead of a 500", async () => {
    const before = await samples("error", "internal");
    const answer = await send(
      appWith(async () => {
        throw new Error("boom");
      }),
      review(),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.response).toMatchObject({ uid: "uid-1", allowed: false });
    expect(JSON.stringify(answer.body)).toContain("internal error");
    expect(await samples("error", "internal")).toBe(before + 1);
    expect(errorLines.at(-1)).toMatchObject({
      level: 50,
      msg: "admission error",
      uid: "uid-1",
      err: { message: "boom" },
    });
  });

  test("an asynchronous rule's verdict is answered, and one that rejects fails closed", async () => {
    const denial = await send(
      appWith(async () => denied("invalid_spec", "looked it up")),
      review(),
    );
    expect(denial.body.response).toMatchObject({ uid: "uid-1", allowed: false });
    expect(JSON.stringify(denial.body)).toContain("cocoon-webhook: looked it up");

    const before = await samples("error", "internal");
    const rejected = await send(
      appWith(async () => Promise.reject(new Error("apiserver exploded"))),
      review(),
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body.response).toMatchObject({ uid: "uid-1", allowed: false });
    expect(JSON.stringify(rejected.body)).toContain("internal error");
    expect(await samples("error", "internal")).toBe(before + 1);
    expect(errorLines.at(-1)).toMatchObject({
      level: 50,
      msg: "admission error",
      err: { message: "apiserver exploded" },
    });
  });

  test("counts reach the metric however often it is read, and only once each", async () => {
    const app = appWith(async () => errored("decode", "read twice"));
    const before = await samples("error", "decode");
    await send(app, review());
    expect(await samples("error", "decode")).toBe(before + 1);
    expect(await samples("error", "decode")).toBe(before + 1);
    await send(app, review());
    await send(app, review());
    expect(await samples("error", "decode")).toBe(before + 3);
  });

  test("an invalid envelope is a 400 naming the field, and records no sample", async () => {
    const before = await samples("skipped", "operation");
    const answer = await send(
      appWith(async () => skipped("operation")),
      { ...review(), kind: "Pod" },
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain("kind");
    expect(await samples("skipped", "operation")).toBe(before);
  });

  test("a denial's log line names each broken rule and its path, and counts the unlisted per rule", async () => {
    const { log: capture, lines } = capturingLogger("warn");
    const violations = collectViolations<CocoonSetRuleId>((report) => {
      for (const index of [0, 1, 2, 3]) {
        report("toolbox.image-required", () =>
          violation("toolbox.image-required", ["spec", "toolboxes", index, "image"], "is required"),
        );
      }
      report("set.snapshot-policy", () =>
        violation("set.snapshot-policy", ["spec", "snapshotPolicy"], "must be one of"),
      );
    }, 2);
    const app = appWith(
      async () => denied("invalid_spec", "invalid CocoonSet", violations),
      capture,
    );
    await send(app, review());
    const denial = lines.find((line) => line.msg === "admission denied");
    expect(denial).toMatchObject({
      handler: "validate_cocoonset",
      reason: "invalid_spec",
      violations: [
        { rule: "toolbox.image-required", path: "spec.toolboxes[0].image" },
        { rule: "toolbox.image-required", path: "spec.toolboxes[1].image" },
      ],
      unlisted: { "toolbox.image-required": 2, "set.snapshot-policy": 1 },
    });
  });

  describe("in warn mode", () => {
    const WARN: Enforcement = { ...DENY_EVERYWHERE, cocoonSet: "warn" };
    const twoViolations = () =>
      collectViolations<CocoonSetRuleId>((report) => {
        for (const index of [0, 1]) {
          report("toolbox.image-required", () =>
            violation(
              "toolbox.image-required",
              ["spec", "toolboxes", index, "image"],
              "is required",
            ),
          );
        }
      }, 20);

    test("a denial is allowed with one warning per violation and counted as warn with its reason", async () => {
      const { log: capture, lines } = capturingLogger("warn");
      const app = appWith(
        async () => denied("invalid_spec", "invalid CocoonSet", twoViolations()),
        capture,
        WARN,
      );
      const before = await samples("warn", "invalid_spec");
      const deniesBefore = await samples("deny", "invalid_spec");
      const answer = await send(app, review());
      expect(answer.body.response).toEqual({
        uid: "uid-1",
        allowed: true,
        warnings: [
          `cocoon-webhook: toolbox.image-required: ${RULE_REMEDIES["toolbox.image-required"]}. spec.toolboxes[0].image: is required`,
          `cocoon-webhook: toolbox.image-required: ${RULE_REMEDIES["toolbox.image-required"]}. spec.toolboxes[1].image: is required`,
        ],
        auditAnnotations: {
          endpoint: "validate-cocoonset",
          decision: "warn",
          reason: "invalid_spec",
          rules: "toolbox.image-required",
        },
      });
      expect(await samples("warn", "invalid_spec")).toBe(before + 1);
      expect(await samples("deny", "invalid_spec")).toBe(deniesBefore);
      expect(lines.find((line) => line.handler === "validate_cocoonset")).toMatchObject({
        level: 40,
        result: "warn",
        reason: "invalid_spec",
        refused: "deny",
        message: "invalid CocoonSet",
        violations: [
          { rule: "toolbox.image-required", path: "spec.toolboxes[0].image" },
          { rule: "toolbox.image-required", path: "spec.toolboxes[1].image" },
        ],
      });
    });

    test("a check that cannot be made, or a handler that throws, is allowed with a warning too", async () => {
      const cannot = await send(
        appWith(async () => errored("decode", "cannot read spec"), log, WARN),
        review(),
      );
      expect(cannot.body.response).toMatchObject({
        allowed: true,
        warnings: [
          `cocoon-webhook: decode: ${ENDPOINTS.cocoonSet.remedies.decode}. cannot read spec`,
        ],
        auditAnnotations: { decision: "warn", reason: "decode" },
      });
      const before = await samples("warn", "internal");
      const thrown = await send(
        appWith(
          () => {
            throw new Error("boom");
          },
          log,
          WARN,
        ),
        review(),
      );
      expect(thrown.body.response).toMatchObject({ allowed: true });
      expect(await samples("warn", "internal")).toBe(before + 1);
    });

    test("what would be allowed anyway carries no warning", async () => {
      const answer = await send(
        appWith(async () => skipped("no_change"), log, WARN),
        review(),
      );
      expect(answer.body.response).toEqual({ uid: "uid-1", allowed: true });
    });
  });
});
