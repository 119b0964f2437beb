import { z } from "zod";
import { type Enforcement, parseEnforcement } from "./admission/enforcement";
import { OPERATOR_USERNAME } from "./cocoon/identities";
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

const duration = (options: { positive: boolean }) =>
  z.string().transform((text, ctx) => {
    const ms = parseDurationMs(text);
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: `"${text}" is not a duration such as 800ms or 3s` });
      return z.NEVER;
    }
    if (options.positive && ms <= 0) {
      ctx.addIssue({ code: "custom", message: "must be greater than zero" });
      return z.NEVER;
    }
    return ms;
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

const usernameList = z
  .string()
  .transform(
    (text) =>
      new Set(
        text
          .split(",")
          .map((name) => name.trim())
          .filter(Boolean),
      ) as ReadonlySet<string>,
  )
  .refine((names) => names.size > 0, "must name at least one user");

const positiveInteger = z
  .string()
  .regex(/^\d+$/, "must be a whole number of bytes")
  .transform(Number)
  .refine((bytes) => bytes > 0, "must be greater than zero");

/** LIMIT of each LIST page the webhook asks for, as kubectl's --chunk-size; the apiserver's own cap is 500 per page here. */
const listPageSize = z
  .string()
  .regex(/^\d+$/, "must be a whole number of objects")
  .transform(Number)
  .refine((size) => size >= 1 && size <= 500, "must be between 1 and 500");

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
  POD_CREATORS: usernameList.prefault(OPERATOR_USERNAME),
  APISERVER_TIMEOUT: duration({ positive: true }).prefault("3s"),
  APISERVER_LIST_PAGE_SIZE: listPageSize.prefault("500"),
  SHUTDOWN_TIMEOUT: duration({ positive: true }).prefault("15s"),
  MAX_REQUEST_BYTES: positiveInteger.prefault("5242880"),
  BODY_READ_TIMEOUT: duration({ positive: true })
    .prefault("2s")
    .describe(
      "bound on reading one request body; past it the answer is 408 and the connection closes",
    ),
  DRAIN_DELAY: duration({ positive: false }).prefault("5s"),
  METRICS_RENDER_INTERVAL: duration({ positive: false }).prefault("1s"),
  TLS_ROTATION_STEERING: z.enum(["auto", "off"]).default("auto"),
  ENFORCEMENT: enforcement.prefault(""),
});

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
  throw new ConfigError(
    parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
  );
}
