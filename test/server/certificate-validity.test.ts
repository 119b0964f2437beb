import { afterEach, describe, expect, test } from "bun:test";
import type { Readiness } from "../../src/http/probes";
import {
  loadRotatedTlsPair,
  loadTlsPair,
  type TlsPair,
  validityProblem,
} from "../../src/server/tls-pair";
import { watchServedCertificate } from "../../src/server/tls-watcher";
import { capturingLogger } from "../support/capturing-logger";
import { createTestCa } from "../support/certs";
import { ManualClock } from "../support/manual-clock";

const ca = createTestCa("validity-unit-ca");
const HOUR = 3600_000;
const cleanups: (() => unknown)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function issueWithin(name: string, fromNow: number, untilNow: number) {
  const now = Date.now();
  return ca.issue(name, {
    validity: { notBefore: new Date(now + fromNow), notAfter: new Date(now + untilNow) },
  });
}

describe("validityProblem", () => {
  const pair = (notBefore: string, notAfter: string): TlsPair => ({
    cert: "",
    key: "",
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
  });
  const window = pair("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z");

  test("inside the window: none", () => {
    expect(validityProblem(window, "it", new Date("2026-01-15T00:00:00Z"))).toBeUndefined();
  });
  test("before notBefore: not yet valid", () => {
    expect(validityProblem(window, "it", new Date("2025-12-31T23:59:59Z"))).toBe(
      "it is not valid before 2026-01-01T00:00:00.000Z",
    );
  });
  test("after notAfter: expired", () => {
    expect(validityProblem(window, "it", new Date("2026-02-01T00:00:01Z"))).toBe(
      "it expired at 2026-02-01T00:00:00.000Z",
    );
  });
});

describe("loadRotatedTlsPair", () => {
  test("a valid pair loads", () => {
    const valid = ca.issue("rotated-valid");
    expect(loadRotatedTlsPair(valid.certFile, valid.keyFile).cert).toBe(valid.cert);
  });

  test("an expired certificate is refused, naming the file and its window", () => {
    const expired = issueWithin("rotated-expired", -2 * HOUR, -HOUR);
    expect(loadTlsPair(expired.certFile, expired.keyFile).cert).toBe(expired.cert);
    expect(() => loadRotatedTlsPair(expired.certFile, expired.keyFile)).toThrow(
      new RegExp(`TLS certificate ${expired.certFile} expired at .* \\(valid .* to .*\\)`),
    );
  });

  test("a certificate that is not yet valid is refused", () => {
    const future = issueWithin("rotated-future", HOUR, 2 * HOUR);
    expect(() => loadRotatedTlsPair(future.certFile, future.keyFile)).toThrow(
      `TLS certificate ${future.certFile} is not valid before`,
    );
  });
});

describe("watchServedCertificate", () => {
  test("an expired certificate at start: not ready at once, one error line", () => {
    const expired = issueWithin("served-expired", -2 * HOUR, -HOUR);
    const pair = loadTlsPair(expired.certFile, expired.keyFile);
    const readiness: Readiness = { ready: true };
    const { log, lines } = capturingLogger();
    cleanups.push(watchServedCertificate(() => pair, readiness, log, 10));
    expect(readiness.certificateProblem).toStartWith("the serving certificate expired at");
    expect(lines.filter((line) => line.level === 50)).toHaveLength(1);
  });

  test("a served certificate that lapses turns readiness off once, and a valid one turns it back on", () => {
    const lapsing = issueWithin("served-lapsing", -HOUR, HOUR);
    let served = loadTlsPair(lapsing.certFile, lapsing.keyFile);
    const readiness: Readiness = { ready: true };
    const { log, lines } = capturingLogger();
    const clock = new ManualClock();
    cleanups.push(watchServedCertificate(() => served, readiness, log, 20, clock));
    expect(readiness.certificateProblem).toBeUndefined();

    clock.advance(HOUR + 20);
    expect(readiness.certificateProblem).toStartWith("the serving certificate expired at");
    // Five more checks must not log the lapse again.
    clock.advance(100);
    expect(lines.filter((line) => line.level === 50)).toHaveLength(1);

    const renewed = issueWithin("served-renewed", HOUR, 3 * HOUR);
    served = loadTlsPair(renewed.certFile, renewed.keyFile);
    clock.advance(20);
    expect(readiness.certificateProblem).toBeUndefined();
    expect(lines.at(-1)?.msg).toBe("the serving certificate is valid again");
  });
});
