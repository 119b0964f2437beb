import { describe, expect, test } from "bun:test";
import { ENDPOINT_KEYS, ENDPOINTS, resultReasons } from "../../src/endpoints/index";
import { admissionMeasures } from "../../src/http/observe";
import { REJECTION_STATUSES } from "../../src/http/rejection";
import {
  admissionDecisions,
  admissionDuration,
  httpResponses,
  requestsInFlight,
} from "../../src/observability/metrics";

const DURATION_COUNT = "cocoon_webhook_admission_duration_seconds_count";

type Labels = Partial<Record<string, string | number>>;

async function seriesOf(metric: { get(): Promise<{ values: { labels: Labels }[] }> }) {
  return (await metric.get()).values.map(({ labels }) => JSON.stringify(labels));
}

async function sampleOf(
  metric: { get(): Promise<{ values: { labels: Labels; value: number; metricName?: string }[] }> },
  labels: Labels,
  metricName?: string,
): Promise<number | undefined> {
  return (await metric.get()).values.find(
    (value) =>
      (metricName === undefined || value.metricName === metricName) &&
      Object.entries(labels).every(([name, wanted]) => value.labels[name] === wanted),
  )?.value;
}

describe("admissionMeasures", () => {
  const measures = admissionMeasures();
  const { path, label } = ENDPOINTS.podGate;

  test("every series an alert reads exists before its first count", async () => {
    const responses = await seriesOf(httpResponses);
    for (const pathLabel of [...ENDPOINT_KEYS.map((key) => ENDPOINTS[key].path), "other"])
      for (const status of REJECTION_STATUSES)
        expect(responses).toContain(JSON.stringify({ path: pathLabel, code: String(status) }));
    const decisions = await seriesOf(admissionDecisions);
    for (const endpoint of ENDPOINT_KEYS)
      for (const { result, reason } of resultReasons(endpoint))
        expect(decisions).toContain(
          JSON.stringify({ handler: ENDPOINTS[endpoint].label, result, reason }),
        );
    for (const endpoint of ENDPOINT_KEYS) {
      const handler = ENDPOINTS[endpoint].label;
      expect(await sampleOf(admissionDuration, { handler }, DURATION_COUNT)).toBeNumber();
    }
  });

  test("a response, a decision and a duration each move their own series by one", async () => {
    const { result, reason } = { result: "skipped", reason: "operation" } as const;
    expect(resultReasons("podGate")).toContainEqual({ result, reason });
    const before = {
      response: await sampleOf(httpResponses, { path, code: "200" }),
      unknownPath: await sampleOf(httpResponses, { path: "other", code: "404" }),
      decision: await sampleOf(admissionDecisions, { handler: label, result, reason }),
      duration: await sampleOf(admissionDuration, { handler: label }, DURATION_COUNT),
    };
    measures.countResponse(path, 200);
    measures.countResponse("/scanner/probe", 404);
    measures.countDecision(path, { result, reason });
    measures.reviewDuration(path)?.observe(0.001);
    expect(await sampleOf(httpResponses, { path, code: "200" })).toBe((before.response ?? 0) + 1);
    expect(await sampleOf(httpResponses, { path: "other", code: "404" })).toBe(
      (before.unknownPath ?? 0) + 1,
    );
    expect(await sampleOf(admissionDecisions, { handler: label, result, reason })).toBe(
      (before.decision ?? 0) + 1,
    );
    expect(await sampleOf(admissionDuration, { handler: label }, DURATION_COUNT)).toBe(
      (before.duration ?? 0) + 1,
    );
    expect(measures.reviewDuration("/scanner/probe")).toBeUndefined();
  });

  test("binding the measures again keeps what was counted", async () => {
    measures.reviewDuration(path)?.observe(0.001);
    const counted = await sampleOf(admissionDuration, { handler: label }, DURATION_COUNT);
    admissionMeasures();
    expect(await sampleOf(admissionDuration, { handler: label }, DURATION_COUNT)).toBe(counted);
  });

  test("in flight goes up and down with the requests", async () => {
    const before = (await requestsInFlight.get()).values[0]?.value ?? 0;
    measures.inFlight.inc();
    expect((await requestsInFlight.get()).values[0]?.value).toBe(before + 1);
    measures.inFlight.dec();
    expect((await requestsInFlight.get()).values[0]?.value).toBe(before);
  });
});
