import { ENVIRONMENT_VARIABLES, environmentJsonSchema } from "../src/config";

/*
 * How the chart sets the webhook's environment. Most variables are strings in
 * `.Values.env`, described in values.schema.json by the JSON Schema that
 * src/config.ts writes from the zod schema start-up parses with (`make chart`
 * writes that part of the schema). ENFORCEMENT, POD_CREATORS and
 * RUNTIME_IDENTITIES are structured values (`enforcement`, `podCreators`,
 * `runtimeIdentities`) the templates join into the variables' syntax, so
 * `--set` never has to carry a comma.
 */

type Json = Record<string, unknown>;

/** Set by the chart itself: it mounts the certificate and exposes the ports. */
export const FIXED_ENVIRONMENT = [
  "KUBECONFIG",
  "TLS_CERT",
  "TLS_KEY",
  "LISTEN_ADDR",
  "METRICS_ADDR",
];
/** Written from structured values (`podCreators`, `runtimeIdentities`, `enforcement`), never from `env`. */
const STRUCTURED_ENVIRONMENT = ["POD_CREATORS", "RUNTIME_IDENTITIES", "ENFORCEMENT"];

/** The variables an operator sets through `.Values.env`. */
export const PLAIN_ENVIRONMENT = ENVIRONMENT_VARIABLES.filter(
  (name) => !FIXED_ENVIRONMENT.includes(name) && !STRUCTURED_ENVIRONMENT.includes(name),
);

/**
 * The schema of each `env.<NAME>`: start-up's schema of the variable's text without its default
 * (unset is the binary's default), null or empty allowed (unset). A pattern applies to strings
 * only, so an integer (what `--set env.MAX_REQUEST_BYTES=1048576` gives) passes here and the
 * template matches it against the same pattern.
 */
export function environmentValuesSchema(): Record<string, Json> {
  const { properties } = environmentJsonSchema() as { properties: Record<string, Json> };
  return Object.fromEntries(
    PLAIN_ENVIRONMENT.map((name) => {
      const { default: _default, type, ...rest } = properties[name] ?? {};
      if (Array.isArray(rest.enum)) return [name, { ...rest, enum: [...rest.enum, "", null] }];
      if (typeof rest.pattern !== "string")
        return [name, { type: [String(type), "null"], ...rest }];
      return [
        name,
        { type: ["string", "integer", "null"], ...rest, pattern: `^$|${rest.pattern}` },
      ];
    }),
  );
}
