import { ENDPOINT_KEYS } from "../../src/admission/endpoints";
import { enforcementName } from "../../src/admission/enforcement";
import { ENVIRONMENT_VARIABLES, environmentJsonSchema } from "../../src/config";

/*
 * How the chart sets the webhook's environment. Most variables are plain
 * strings in `.Values.env`, described by the JSON Schema that src/config.ts
 * writes from the same zod schema start-up parses with. The two lists,
 * ENFORCEMENT and POD_CREATORS, are structured values (`enforcement`,
 * `podCreators`) that the chart joins into the variables' syntax, so `--set`
 * never has to carry a comma.
 */

type Json = Record<string, unknown>;

/** Variables the chart sets itself, because it also mounts the files and exposes the ports. */
export const FIXED_ENVIRONMENT = [
  "KUBECONFIG",
  "TLS_CERT",
  "TLS_KEY",
  "LISTEN_ADDR",
  "METRICS_ADDR",
];

/** Variables written from structured values, with the value that holds each. */
export const STRUCTURED_ENVIRONMENT: Readonly<Record<string, string>> = {
  POD_CREATORS: "podCreators",
  ENFORCEMENT: "enforcement",
};

/** Every variable the chart writes, in the order start-up documents them. */
export const CHART_ENVIRONMENT = ENVIRONMENT_VARIABLES.filter(
  (name) => !FIXED_ENVIRONMENT.includes(name),
);

/** The variables an operator sets through `.Values.env`. */
export const PLAIN_ENVIRONMENT = CHART_ENVIRONMENT.filter(
  (name) => !(name in STRUCTURED_ENVIRONMENT),
);

/** ENFORCEMENT's endpoint names, in the endpoint table's order. */
export const ENFORCEMENT_ENDPOINTS = ENDPOINT_KEYS.map(enforcementName);

/**
 * The schema of each `.Values.env` entry: start-up's own schema of the
 * variable's text, without its default (unset means the binary's default),
 * and also null or empty (unset). A pattern applies to strings only, so an
 * integer (what `--set env.MAX_REQUEST_BYTES=1048576` gives) is accepted
 * here and matched against the same pattern by the template
 * (environmentPatterns).
 */
export function environmentValuesSchema(): Json {
  const properties = (environmentJsonSchema() as { properties: Record<string, Json> }).properties;
  return Object.fromEntries(
    PLAIN_ENVIRONMENT.map((name) => {
      const { default: _default, type, ...rest } = properties[name] ?? {};
      if (Array.isArray(rest.enum)) return [name, { ...rest, enum: [...rest.enum, "", null] }];
      if (typeof rest.pattern !== "string")
        return [name, { type: [String(type), "null"], ...rest }];
      // Empty is unset, as start-up reads it.
      return [
        name,
        { type: ["string", "integer", "null"], ...rest, pattern: `^$|${rest.pattern}` },
      ];
    }),
  );
}

/** Each plain variable's pattern, for the template to match integers and anything else. */
export function environmentPatterns(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environmentValuesSchema())
      .map(([name, schema]) => [name, (schema as Json).pattern] as const)
      .filter((entry): entry is readonly [string, string] => typeof entry[1] === "string"),
  );
}

const DNS_LABEL = "[a-z0-9](?:[-a-z0-9]*[a-z0-9])?";
/** `group/Kind`, as POD_CREATORS pairs an identity with the owner kinds it may create pods for. */
export const GROUP_KIND_PATTERN = `^${DNS_LABEL}(?:\\.${DNS_LABEL})*/[A-Z][A-Za-z0-9]*$`;
/** A user name as POD_CREATORS can carry it: no separator of its syntax, no surrounding space. */
export const IDENTITY_PATTERN = "^[^,=|\\s](?:[^,=|]*[^,=|\\s])?$";

/** `.Values.podCreators` from a POD_CREATORS value, entry by entry (the manifests' default). */
export function podCreatorsOf(text: string): Json[] {
  return text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [identity = "", kinds] = entry.split("=").map((part) => part.trim());
      return kinds === undefined ? { identity } : { identity, kinds: kinds.split("|") };
    });
}

/** `.Values.enforcement` from an ENFORCEMENT value. */
export function enforcementOf(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(",")
      .map((pair) => pair.split("=").map((part) => part.trim()))
      .filter(([name]) => name),
  );
}
