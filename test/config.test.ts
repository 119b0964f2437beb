import { describe, expect, test } from "bun:test";
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
      WEBHOOK_LOG_LEVEL: "info",
      TLS_CERT: "/etc/cocoon/webhook/certs/tls.crt",
      TLS_KEY: "/etc/cocoon/webhook/certs/tls.key",
      LISTEN_ADDR: { port: 8443 },
      METRICS_ADDR: { port: 9090 },
      POD_CREATORS: new Set(["system:serviceaccount:cocoon-system:cocoon-operator"]),
      APISERVER_TIMEOUT: 3000,
      SHUTDOWN_TIMEOUT: 15_000,
      MAX_REQUEST_BYTES: 7_340_032,
      DRAIN_DELAY: 5000,
      METRICS_RENDER_INTERVAL: 1000,
      TLS_ROTATION_STEERING: "auto",
    });
  });

  test("POD_CREATORS entries are trimmed and empty ones dropped", () => {
    expect(loadConfig({ POD_CREATORS: " alice , ,bob," }).POD_CREATORS).toEqual(
      new Set(["alice", "bob"]),
    );
  });

  test("listen addresses take a host, an IPv6 literal or none", () => {
    expect(loadConfig({ LISTEN_ADDR: "127.0.0.1:8443" }).LISTEN_ADDR).toEqual({
      hostname: "127.0.0.1",
      port: 8443,
    });
    expect(loadConfig({ LISTEN_ADDR: "[::1]:9443" }).LISTEN_ADDR).toEqual({
      hostname: "::1",
      port: 9443,
    });
  });

  test("an empty variable takes the default", () => {
    expect(loadConfig({ DRAIN_DELAY: "" }).DRAIN_DELAY).toBe(5000);
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
});
