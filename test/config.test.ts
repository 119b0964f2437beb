import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LISTED_PROBLEMS_LIMIT } from "../src/bounded-text";
import { ConfigError, loadConfig, parseDurationMs } from "../src/config";
import { DENY_EVERYWHERE } from "../src/endpoints/enforcement";
import { configErrorOf } from "./support/config-error";

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
  test("the defaults", () => {
    expect(loadConfig({})).toEqual({
      logLevel: "info",
      tlsCertPath: "/etc/cocoon/webhook/certs/tls.crt",
      tlsKeyPath: "/etc/cocoon/webhook/certs/tls.key",
      listenAddress: { port: 8443 },
      metricsAddress: { port: 9090 },
      podCreators: new Map([
        [
          "system:serviceaccount:cocoon-system:cocoon-operator",
          [{ group: "cocoonset.cocoonstack.io", kind: "CocoonSet" }],
        ],
        [
          "system:serviceaccount:sandbox-system:sandbox-operator",
          [{ group: "agents.x-k8s.io", kind: "Sandbox" }],
        ],
      ]),
      runtimeIdentities: {
        usernames: new Set([
          "system:serviceaccount:cocoon-system:vk-cocoon",
          "system:serviceaccount:sandbox-system:vk-sandbox",
          "system:serviceaccount:kube-system:generic-garbage-collector",
          "system:kube-controller-manager",
        ]),
        boundNodes: true,
      },
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

  test("docs/configuration.md gives each variable's default: setting it to that changes nothing", () => {
    const table = readFileSync(join(import.meta.dir, "../docs/configuration.md"), "utf8");
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \| `([^`]*)`/gm)].map(
      ([, name = "", value = ""]) => [name, value] as const,
    );
    expect(documented.map(([name]) => name)).toContain("POD_CREATORS");
    for (const [name, value] of documented) {
      expect(loadConfig({ [name]: value }), `${name}=${value}`).toEqual(loadConfig({}));
    }
  });

  test("POD_CREATORS entries are trimmed, empty ones dropped, and an entry without = means CocoonSet", () => {
    const cocoonSet = { group: "cocoonset.cocoonstack.io", kind: "CocoonSet" };
    expect(loadConfig({ POD_CREATORS: " alice , ,bob," }).podCreators).toEqual(
      new Map([
        ["alice", [cocoonSet]],
        ["bob", [cocoonSet]],
      ]),
    );
  });

  test("POD_CREATORS pairs each identity with the kinds it names, merged when named twice", () => {
    const { podCreators } = loadConfig({
      POD_CREATORS:
        "op = example.com/Machine | cocoonset.cocoonstack.io/CocoonSet, op=example.com/Machine,carol",
    });
    expect(podCreators).toEqual(
      new Map([
        [
          "op",
          [
            { group: "example.com", kind: "Machine" },
            { group: "cocoonset.cocoonstack.io", kind: "CocoonSet" },
          ],
        ],
        ["carol", [{ group: "cocoonset.cocoonstack.io", kind: "CocoonSet" }]],
      ]),
    );
  });

  test.each([
    ["a kind without its group", "op=Sandbox", '"op=Sandbox"'],
    ["an empty kind list", "op=", '"op="'],
    ["a group that is not a DNS name", "op=Agents_X/Sandbox", '"op=Agents_X/Sandbox"'],
    ["a kind in lower case", "op=agents.x-k8s.io/sandbox", "agents.x-k8s.io/sandbox"],
    ["a version in the kind", "op=agents.x-k8s.io/v1beta1/Sandbox", "v1beta1/Sandbox"],
    ["no identity", "=agents.x-k8s.io/Sandbox", '"=agents.x-k8s.io/Sandbox"'],
    ["kinds joined by a comma", "op=a.io/A,b.io/B", '"b.io/B"'],
  ])("POD_CREATORS with %s is refused, naming the entry", (_case, value, named) => {
    expect(() => loadConfig({ POD_CREATORS: value })).toThrow(named);
    try {
      loadConfig({ POD_CREATORS: `system:serviceaccount:x:y,${value}` });
      throw new Error("expected a ConfigError");
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const problems = error.problems.join("\n");
      expect(problems).toContain("POD_CREATORS: ");
      expect(problems).toContain(named);
    }
  });

  test("POD_CREATORS refuses an identity the matchConditions could not hold", () => {
    expect(() => loadConfig({ POD_CREATORS: "it's-me" })).toThrow(`entry "it's-me" identity has`);
  });

  test("RUNTIME_IDENTITIES: usernames and system:node:*, trimmed, empty entries dropped", () => {
    expect(
      loadConfig({ RUNTIME_IDENTITIES: " system:serviceaccount:a:b , ,system:node:* " })
        .runtimeIdentities,
    ).toEqual({ usernames: new Set(["system:serviceaccount:a:b"]), boundNodes: true });
    expect(loadConfig({ RUNTIME_IDENTITIES: "bob" }).runtimeIdentities).toEqual({
      usernames: new Set(["bob"]),
      boundNodes: false,
    });
  });

  test.each([
    ["a wildcard other than system:node:*", "system:serviceaccount:*", '"system:serviceaccount:*"'],
    ["a quote", "o'brien", `"o'brien"`],
    ["inner whitespace", "vk cocoon", '"vk cocoon"'],
    ["an = sign", "vk=cocoonset.cocoonstack.io/CocoonSet", '"vk=cocoonset'],
  ])("RUNTIME_IDENTITIES with %s is refused, naming the entry", (_case, value, named) => {
    try {
      loadConfig({ RUNTIME_IDENTITIES: `system:serviceaccount:x:y,${value}` });
      throw new Error("expected a ConfigError");
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const problems = error.problems.join("\n");
      expect(problems).toContain("RUNTIME_IDENTITIES: entry ");
      expect(problems).toContain(named);
      expect(problems).not.toContain("system:serviceaccount:x:y");
    }
  });

  test("POD_CREATORS of only separators is refused", () => {
    expect(() => loadConfig({ POD_CREATORS: " , ," })).toThrow(
      "POD_CREATORS: must name at least one identity",
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

  test("every variable's problems are bounded: 10 000 bad POD_CREATORS entries are ten lines and a count", () => {
    const entries = Array.from({ length: 10_000 }, (_, index) => `user-${index}=not a kind`);
    const error = configErrorOf({ POD_CREATORS: entries.join(",") });
    expect(error.problems).toHaveLength(LISTED_PROBLEMS_LIMIT + 1);
    expect(error.problems.at(-1)).toBe(
      `POD_CREATORS: … and ${10_000 - LISTED_PROBLEMS_LIMIT} more problems`,
    );
    expect(error.message.length).toBeLessThan(8 * 1024);
  });

  test.each([
    ["POD_CREATORS", "\u001b[2J\u001b[31mfake=not/a kind\u001b[0m"],
    ["LISTEN_ADDR", "\u001b]0;owned\u0007:8443x"],
    ["APISERVER_TIMEOUT", "3s\u001b[1A\u001b[K"],
    ["METRICS_ADDR", "x".repeat(100_000)],
  ])("%s: the value is cut short and its control characters escaped", (variable, value) => {
    const { message } = configErrorOf({ [variable]: value });
    expect(message).toContain(`${variable}: `);
    expect(message).not.toContain("\u001b");
    expect(message).not.toContain("\u0007");
    if (value.includes("\u001b")) expect(message).toContain("\\u001b");
    expect(message.length).toBeLessThan(1024);
  });

  test.each(["0", "501", "12.5", "many"])("APISERVER_LIST_PAGE_SIZE=%p is refused", (size) => {
    expect(() => loadConfig({ APISERVER_LIST_PAGE_SIZE: size })).toThrow(
      /APISERVER_LIST_PAGE_SIZE: must be (a whole number of objects|between 1 and 500)/,
    );
  });
});
