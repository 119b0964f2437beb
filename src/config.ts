import { z } from "zod";
import { boundedProblems } from "./bounded-text";
import { type Enforcement, parseEnforcement } from "./endpoints/enforcement";
import {
  DEFAULT_POD_CREATORS,
  type PodCreators,
  parsePodCreators,
} from "./endpoints/pod-gate/creators";
import {
  DEFAULT_RUNTIME_IDENTITIES,
  parseRuntimeIdentities,
  type RuntimeIdentities,
} from "./endpoints/pod-gate/platform-identities";
import { LOG_LEVELS } from "./observability/logger";

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** Parses Go-style durations as the manifests write them: `800ms`, `3s`, `1m30s`. */
export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "0") return 0;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== trimmed) return undefined;
  return parts.reduce(
    (total, [, amount, unit]) =>
      total + Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS],
    0,
  );
}

/*
 * The grammar of each textual variable is a `.regex()` before its transform,
 * so the JSON Schema written from this schema (environmentJsonSchema, the
 * Helm chart's values.schema.json) refuses what start-up refuses. Patterns
 * stay within what both JavaScript and Go's RE2 read.
 */
const DURATION_PART = String.raw`\d+(?:\.\d+)?(?:ms|s|m|h)`;
const NONZERO_PART = String.raw`(?:\d*[1-9]\d*(?:\.\d+)?|\d+\.\d*[1-9]\d*)(?:ms|s|m|h)`;
const DURATION_PATTERNS = {
  any: new RegExp(String.raw`^\s*(?:0|(?:${DURATION_PART})+)\s*$`),
  positive: new RegExp(
    String.raw`^\s*(?:${DURATION_PART})*${NONZERO_PART}(?:${DURATION_PART})*\s*$`,
  ),
};

const duration = (options: { positive: boolean }) =>
  z
    .string()
    .regex(options.positive ? DURATION_PATTERNS.positive : DURATION_PATTERNS.any, {
      error: (issue) =>
        `"${String(issue.input)}" is not a ${options.positive ? "positive " : ""}duration such as 800ms or 3s`,
    })
    .transform((text, ctx) => {
      // The pattern has checked the grammar (and, for a positive duration, a non-zero part).
      const ms = parseDurationMs(text);
      if (ms !== undefined) return ms;
      ctx.addIssue({ code: "custom", message: `"${text}" is not a duration such as 800ms or 3s` });
      return z.NEVER;
    });

export interface ListenAddress {
  /** Absent for `:port`: every address, IPv6 included, as Go's `:8443` means. */
  readonly hostname?: string;
  readonly port: number;
}

const listenAddress = z.string().transform((text, ctx): ListenAddress => {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port > 65535) {
    ctx.addIssue({ code: "custom", message: `"${text}" is not [host]:port, e.g. :8443` });
    return z.NEVER;
  }
  const hostname = match[1] ?? match[2] ?? "";
  return hostname === "" ? { port } : { hostname, port };
});

/** POD_CREATORS: `identity[=group/Kind|…]` entries; each malformed one is named. */
const podCreators = z.string().transform((text, ctx): PodCreators => {
  const parsed = parsePodCreators(text);
  if ("podCreators" in parsed) return parsed.podCreators;
  for (const problem of parsed.problems) ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
});

/** RUNTIME_IDENTITIES: usernames and `system:node:*`; each malformed entry is named. */
const runtimeIdentities = z.string().transform((text, ctx): RuntimeIdentities => {
  const parsed = parseRuntimeIdentities(text);
  if ("runtimeIdentities" in parsed) return parsed.runtimeIdentities;
  for (const problem of parsed.problems) ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
});

const positiveInteger = z
  .string()
  .regex(/^0*[1-9]\d*$/, "must be a whole number of bytes, greater than zero")
  .transform(Number);

/** LIMIT of each LIST page the webhook asks for, as kubectl's --chunk-size; the apiserver's own cap is 500 per page here. */
const listPageSize = z
  .string()
  .regex(/^0*(?:[1-9]\d?|[1-4]\d\d|500)$/, "must be a whole number of objects between 1 and 500")
  .transform(Number);

/** ENFORCEMENT: `ENDPOINT=ACTION` pairs; every endpoint not named denies. */
const enforcement = z.string().transform((text, ctx): Enforcement => {
  const parsed = parseEnforcement(text);
  if ("enforcement" in parsed) return parsed.enforcement;
  for (const problem of parsed.problems) ctx.addIssue({ code: "custom", message: problem });
  return z.NEVER;
});

/** One entry per environment variable; docs/configuration.md describes each. */
const environmentSchema = z.object({
  KUBECONFIG: z.string().optional(),
  WEBHOOK_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  TLS_CERT: z.string().min(1).default("/etc/cocoon/webhook/certs/tls.crt"),
  TLS_KEY: z.string().min(1).default("/etc/cocoon/webhook/certs/tls.key"),
  LISTEN_ADDR: listenAddress.prefault(":8443"),
  METRICS_ADDR: listenAddress.prefault(":9090"),
  POD_CREATORS: podCreators.prefault(DEFAULT_POD_CREATORS),
  RUNTIME_IDENTITIES: runtimeIdentities.prefault(DEFAULT_RUNTIME_IDENTITIES),
  APISERVER_TIMEOUT: duration({ positive: true }).prefault("3s"),
  APISERVER_LIST_PAGE_SIZE: listPageSize.prefault("500"),
  SHUTDOWN_TIMEOUT: duration({ positive: true }).prefault("15s"),
  MAX_REQUEST_BYTES: positiveInteger.prefault("5242880"),
  BODY_READ_TIMEOUT: duration({ positive: true }).prefault("2s"),
  DRAIN_DELAY: duration({ positive: false }).prefault("5s"),
  METRICS_RENDER_INTERVAL: duration({ positive: false }).prefault("1s"),
  TLS_ROTATION_STEERING: z.enum(["auto", "off"]).default("auto"),
  ENFORCEMENT: enforcement.prefault(""),
});

/** The variables as JSON Schema of their text (io "input"): what start-up accepts, for the chart. */
export const environmentJsonSchema = () =>
  z.toJSONSchema(environmentSchema, { io: "input", unrepresentable: "any" });

/** Every variable the webhook reads, in the order docs/configuration.md lists them. */
export const ENVIRONMENT_VARIABLES = Object.keys(environmentSchema.shape);

/**
 * The configuration as the code reads it: named for what each value is, and
 * every duration in milliseconds, said in its name.
 */
const configSchema = environmentSchema.transform((env) => ({
  ...(env.KUBECONFIG === undefined ? {} : { kubeconfigPath: env.KUBECONFIG }),
  logLevel: env.WEBHOOK_LOG_LEVEL,
  tlsCertPath: env.TLS_CERT,
  tlsKeyPath: env.TLS_KEY,
  listenAddress: env.LISTEN_ADDR,
  metricsAddress: env.METRICS_ADDR,
  podCreators: env.POD_CREATORS,
  runtimeIdentities: env.RUNTIME_IDENTITIES,
  apiserverTimeoutMs: env.APISERVER_TIMEOUT,
  apiserverListPageSize: env.APISERVER_LIST_PAGE_SIZE,
  shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT,
  maxRequestBytes: env.MAX_REQUEST_BYTES,
  bodyReadTimeoutMs: env.BODY_READ_TIMEOUT,
  drainDelayMs: env.DRAIN_DELAY,
  metricsRenderIntervalMs: env.METRICS_RENDER_INTERVAL,
  tlsRotationSteering: env.TLS_ROTATION_STEERING,
  enforcement: env.ENFORCEMENT,
}));

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
}

/** Reads the configuration; an unset or empty variable takes its default. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(environmentSchema.shape)
      .map((name) => [name, env[name]] as const)
      .filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = configSchema.safeParse(present);
  if (parsed.success) return parsed.data;
  const byVariable = Map.groupBy(parsed.error.issues, (issue) => issue.path.join("."));
  throw new ConfigError(
    [...byVariable].flatMap(([variable, issues]) =>
      boundedProblems(
        variable,
        issues.map((issue) => issue.message),
      ),
    ),
  );
}
