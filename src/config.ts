import { z } from "zod";
import { LIST_PAGE_LIMIT } from "./apiserver/list-pages";
import { boundedProblems } from "./bounded-text";
import { parseEnforcement } from "./endpoints/enforcement";
import { DEFAULT_POD_CREATORS, parsePodCreators } from "./endpoints/pod-gate/creators";
import {
  DEFAULT_RUNTIME_IDENTITIES,
  parseRuntimeIdentities,
} from "./endpoints/pod-gate/platform-identities";
import { LOG_LEVELS } from "./observability/logger";

/*
 * The grammar of each textual variable but the three lists (which have parsers
 * of their own, and structured values in the chart) is a `.regex()` before its
 * transform, so the JSON Schema written from this schema (environmentJsonSchema,
 * the Helm chart's values.schema.json) refuses what start-up refuses. Patterns
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
const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** The milliseconds of a text the duration grammar accepted. */
const durationMs = (text: string): number =>
  [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)].reduce(
    (total, [, amount, unit]) =>
      total + Number(amount) * DURATION_UNITS_MS[unit as keyof typeof DURATION_UNITS_MS],
    0,
  );

/** Parses Go-style durations as the manifests write them: `800ms`, `3s`, `1m30s`. */
export function parseDurationMs(text: string): number | undefined {
  return DURATION_PATTERNS.any.test(text) ? durationMs(text) : undefined;
}

const duration = (options: { positive: boolean }) =>
  z
    .string()
    .regex(options.positive ? DURATION_PATTERNS.positive : DURATION_PATTERNS.any, {
      error: (issue) =>
        `"${String(issue.input)}" is not a ${options.positive ? "positive " : ""}duration such as 800ms or 3s`,
    })
    .transform(durationMs);

/** A port of one to five digits, at most 65535. */
const PORT_PART = String.raw`\d{1,4}|[0-5]\d{4}|6[0-4]\d{3}|65[0-4]\d{2}|655[0-2]\d|6553[0-5]`;
/** `[host]:port`: a bracketed IPv6 literal, a host without `:`, `[` or `]`, or none. */
const LISTEN_ADDRESS_PATTERN = new RegExp(
  String.raw`^\s*(?:\[([^\]]+)\]|([^:\[\]]*)):(${PORT_PART})\s*$`,
);

/** No hostname for `:port`: every address, IPv6 included, as Go's `:8443` means. */
const listenAddress = z
  .string()
  .regex(LISTEN_ADDRESS_PATTERN, {
    error: (issue) => `"${String(issue.input)}" is not [host]:port, e.g. :8443`,
  })
  .transform((text) => {
    const [, bracketed, plain, port] = LISTEN_ADDRESS_PATTERN.exec(text) ?? [];
    const hostname = bracketed ?? plain ?? "";
    return hostname === "" ? { port: Number(port) } : { hostname, port: Number(port) };
  });
export type ListenAddress = z.output<typeof listenAddress>;

/** A variable read by its own parser, which names each malformed entry. */
const parsedBy = <Key extends string, Value>(
  key: Key,
  parse: (
    text: string,
  ) => { readonly [K in Key]: Value } | { readonly problems: readonly string[] },
) =>
  z.string().transform((text, ctx): Value => {
    const parsed = parse(text);
    if (!("problems" in parsed)) return parsed[key];
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

/** One entry per environment variable; docs/configuration.md describes each. */
const environmentSchema = z.object({
  KUBECONFIG: z.string().optional(),
  WEBHOOK_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  TLS_CERT: z.string().min(1).default("/etc/cocoon/webhook/certs/tls.crt"),
  TLS_KEY: z.string().min(1).default("/etc/cocoon/webhook/certs/tls.key"),
  LISTEN_ADDR: listenAddress.prefault(":8443"),
  METRICS_ADDR: listenAddress.prefault(":9090"),
  POD_CREATORS: parsedBy("podCreators", parsePodCreators).prefault(DEFAULT_POD_CREATORS),
  RUNTIME_IDENTITIES: parsedBy("runtimeIdentities", parseRuntimeIdentities).prefault(
    DEFAULT_RUNTIME_IDENTITIES,
  ),
  APISERVER_TIMEOUT: duration({ positive: true }).prefault("3s"),
  APISERVER_LIST_PAGE_SIZE: listPageSize.prefault(String(LIST_PAGE_LIMIT)),
  SHUTDOWN_TIMEOUT: duration({ positive: true }).prefault("15s"),
  MAX_REQUEST_BYTES: positiveInteger.prefault("5242880"),
  BODY_READ_TIMEOUT: duration({ positive: true }).prefault("2s"),
  DRAIN_DELAY: duration({ positive: false }).prefault("5s"),
  METRICS_RENDER_INTERVAL: duration({ positive: false }).prefault("1s"),
  TLS_ROTATION_STEERING: z.enum(["auto", "off"]).default("auto"),
  ENFORCEMENT: parsedBy("enforcement", parseEnforcement).prefault(""),
});

/** The variables as JSON Schema of their text (io "input"): what start-up accepts, for the chart. */
export const environmentJsonSchema = () =>
  z.toJSONSchema(environmentSchema, { io: "input", unrepresentable: "any" });

/** Every variable the webhook reads, in the order docs/configuration.md lists them. */
export const ENVIRONMENT_VARIABLES = Object.keys(environmentSchema.shape);

/** The configuration as the code reads it: named for what each value is, durations in ms. */
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
    ENVIRONMENT_VARIABLES.map((name) => [name, env[name]] as const).filter(
      ([, value]) => value !== undefined && value !== "",
    ),
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
