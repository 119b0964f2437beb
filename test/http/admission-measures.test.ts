import { describe, expect, test } from "bun:test";
import { ENDPOINT_KEYS, ENDPOINTS, resultReasons } from "../../src/endpoints/index";
import { admissionMeasures } from "../../src/http/observe";
import { REJECTION_STATUSES } from "../../src/http/rejection";
import { exposition } from "../../src/observability/metrics";

const RESPONSES = "cocoon_webhook_http_responses_total";
const DECISIONS = "cocoon_webhook_admission_total";
const DURATION_COUNT = "cocoon_webhook_admission_duration_seconds_count";
const IN_FLIGHT = "cocoon_webhook_http_requests_in_flight";

/** The value of series `name{labels}` in the /metrics text, as a scrape reads it. */
async function sampleOf(
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const line of (await exposition()).split("\n")) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2] ? match[2].split(",") : [];
    if (present.length === wanted.length && wanted.every((pair) => present.includes(pair)))
      return Number(match[3]);
  }
  return undefined;
}

describe("admissionMeasures", () => {
  const measures = admissionMeasures();
  const { path, label } = ENDPOINTS.podGate;

  test("every series an alert reads exists before its first count", async () => {
    for (const pathLabel of [...ENDPOINT_KEYS.map((key) => ENDPOINTS[key].path), "other"])
      for (const status of REJECTION_STATUSES)
        expect(await sampleOf(RESPONSES, { path: pathLabel, code: String(status) })).toBeNumber();
    for (const endpoint of ENDPOINT_KEYS)
      for (const { result, reason } of resultReasons(endpoint))
        expect(
          await sampleOf(DECISIONS, { handler: ENDPOINTS[endpoint].label, result, reason }),
        ).toBeNumber();
    for (const endpoint of ENDPOINT_KEYS) {
      const handler = ENDPOINTS[endpoint].label;
      expect(await sampleOf(DURATION_COUNT, { handler })).toBeNumber();
    }
  });

  test("a response, a decision and a duration each move their own series by one", async () => {
    const { result, reason } = { result: "skipped", reason: "operation" } as const;
    expect(resultReasons("podGate")).toContainEqual({ result, reason });
    const before = {
      response: await sampleOf(RESPONSES, { path, code: "200" }),
      unknownPath: await sampleOf(RESPONSES, { path: "other", code: "404" }),
      decision: await sampleOf(DECISIONS, { handler: label, result, reason }),
      duration: await sampleOf(DURATION_COUNT, { handler: label }),
    };
    measures.countResponse(path, 200);
    measures.countResponse("/scanner/probe", 404);
    measures.countDecision(path, { result, reason });
    measures.reviewDuration(path)?.observe(0.001);
    expect(await sampleOf(RESPONSES, { path, code: "200" })).toBe((before.response ?? 0) + 1);
    expect(await sampleOf(RESPONSES, { path: "other", code: "404" })).toBe(
      (before.unknownPath ?? 0) + 1,
    );
    expect(await sampleOf(DECISIONS, { handler: label, result, reason })).toBe(
      (before.decision ?? 0) + 1,
    );
    expect(await sampleOf(DURATION_COUNT, { handler: label })).toBe((before.duration ?? 0) + 1);
    expect(measures.reviewDuration("/scanner/probe")).toBeUndefined();
  });

  test("binding the measures again keeps what was counted", async () => {
    measures.reviewDuration(path)?.observe(0.001);
    const counted = await sampleOf(DURATION_COUNT, { handler: label });
    admissionMeasures();
    expect(await sampleOf(DURATION_COUNT, { handler: label })).toBe(counted);
  });

  test("in flight goes up and down with the requests", async () => {
    const before = (await sampleOf(IN_FLIGHT)) ?? 0;
    measures.inFlight.inc();
    expect(await sampleOf(IN_FLIGHT)).toBe(before + 1);
    measures.inFlight.dec();
    expect(await sampleOf(IN_FLIGHT)).toBe(before);
  });
});
