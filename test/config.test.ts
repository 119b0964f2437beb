import { describe, expect, test } from "bun:test";
import { DENY_EVERYWHERE } from "../src/admission/enforcement";
import { ConfigError, loadConfig, parseDurationMs } from "../src/config";

describe("parseDurationMs", () => {
  test.each([
    ["800ms", 800],
    ["3s", 3000],
    ["1m30s", 90_000],
    ["1.5s", 1500],
    ["0s", 0],
    ["0", 0],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  test.each(["", "3", "3 s", "soon", "-1s", "3sx", "s"])("%p is not a duration", (text) => {
    expect(parseDurationMs(text)).toBeUndefined();
  });
});

describe("loadConfig", () => {
  test("defaults are the ones docs/configuration.md lists", () => {
    expect(loadConfig({})).toEqual({
      logLevel: "info",
      tlsCertPath: "/etc/cocoon/webhook/certs/tls.crt",
      tlsKeyPath: "/etc/cocoon/webhook/certs/tls.key",
      listenAddress: { port: 8443 },
      metricsAddress: { port: 9090 },
      podCreators: new Set(["system:serviceaccount:cocoon-system:cocoon-operator"]),
      apiserverTimeoutMs: 3000,
      apiserverListPageSize: 500,
      shutdownTimeoutMs: 15_000,
      maxRequestBytes: 5_242_880,
      bodyReadTimeoutMs: 2000,
      drainDelayMs: 5000,
      metricsRenderIntervalMs: 1000,
      tlsRotationSteering: "auto",
      enforcement: DENY_EVERYWHERE,
    });
  });

  test("POD_CREATORS entries are trimmed and empty ones dropped", () => {
    expect(loadConfig({ POD_CREATORS: " alice , ,bob," }).podCreators).toEqual(
      new Set(["alice", "bob"]),
    );
  });

  test("listen addresses take a host, an IPv6 literal or none", () => {
    expect(loadConfig({ LISTEN_ADDR: "127.0.0.1:8443" }).listenAddress).toEqual({
      hostname: "127.0.0.1",
      port: 8443,
    });
    expect(loadConfig({ LISTEN_ADDR: "[::1]:9443" }).listenAddress).toEqual({
      hostname: "::1",
      port: 9443,
    });
  });

  test("an empty variable takes the default", () => {
    expect(loadConfig({ DRAIN_DELAY: "" }).drainDelayMs).toBe(5000);
  });

  test("every bad variable is named, all at once", () => {
    try {
      loadConfig({ APISERVER_TIMEOUT: "0s", METRICS_ADDR: "9090", MAX_REQUEST_BYTES: "1e6" });
      throw new Error("expected a ConfigError");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join("\n");
      for (const variable of ["APISERVER_TIMEOUT", "METRICS_ADDR", "MAX_REQUEST_BYTES"]) {
        expect(problems).toContain(variable);
      }
    }
  });

  test.each(["0", "501", "12.5", "many"])("APISERVER_LIST_PAGE_SIZE=%p is refused", (size) => {
    expect(() => loadConfig({ APISERVER_LIST_PAGE_SIZE: size })).toThrow(
      /APISERVER_LIST_PAGE_SIZE: must be (a whole number of objects|between 1 and 500)/,
    );
  });
});
