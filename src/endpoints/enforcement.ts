import { quotedSetting } from "../bounded-text";
import { ENDPOINT_KEYS, ENDPOINTS, type EndpointKey } from "./index";

// `warn` allows what an endpoint would refuse and says what the refusal would have said, so a new
// rule or the pod gate can be watched in a cluster before it blocks anyone.

export const ENFORCEMENT_ACTIONS = ["deny", "warn"] as const;
export type EnforcementAction = (typeof ENFORCEMENT_ACTIONS)[number];

export type Enforcement = Readonly<Record<EndpointKey, EnforcementAction>>;

export const DENY_EVERYWHERE: Enforcement = Object.freeze(
  Object.fromEntries(ENDPOINT_KEYS.map((label) => [label, "deny"])) as Record<
    EndpointKey,
    EnforcementAction
  >,
);

/** How ENFORCEMENT names an endpoint: its path without the slash (`validate-cocoonset`). */
export const enforcementName = (label: EndpointKey): string => ENDPOINTS[label].path.slice(1);

const LABEL_BY_NAME: ReadonlyMap<string, EndpointKey> = new Map(
  ENDPOINT_KEYS.map((label) => [enforcementName(label), label]),
);

/**
 * ENFORCEMENT's `ENDPOINT=ACTION,…`; an endpoint not named is `deny`. Every problem quotes what
 * it read escaped, so a look-alike character shows.
 */
export function parseEnforcement(
  text: string,
): { readonly enforcement: Enforcement } | { readonly problems: readonly string[] } {
  const enforcement: Record<EndpointKey, EnforcementAction> = { ...DENY_EVERYWHERE };
  const problems: string[] = [];
  const named = new Set<EndpointKey>();
  for (const pair of text.split(",").map((entry) => entry.trim())) {
    if (pair === "") continue;
    const [name = "", action = "", ...rest] = pair.split("=").map((part) => part.trim());
    const label = LABEL_BY_NAME.get(name);
    if (rest.length > 0 || !pair.includes("=")) {
      problems.push(`${quotedSetting(pair)} is not ENDPOINT=ACTION`);
    } else if (label === undefined) {
      problems.push(
        `${quotedSetting(name)} is not an endpoint; use ${[...LABEL_BY_NAME.keys()].join(", ")}`,
      );
    } else if (!isAction(action)) {
      problems.push(`${quotedSetting(action)} for ${name} is not an action; use deny or warn`);
    } else if (named.has(label)) {
      problems.push(`${name} is named twice`);
    } else {
      named.add(label);
      enforcement[label] = action;
    }
  }
  return problems.length > 0 ? { problems } : { enforcement };
}

const isAction = (text: string): text is EnforcementAction =>
  (ENFORCEMENT_ACTIONS as readonly string[]).includes(text);

/** The endpoints that allow what they would refuse, in table order. */
export const warnModeEndpoints = (enforcement: Enforcement): EndpointKey[] =>
  ENDPOINT_KEYS.filter((label) => enforcement[label] === "warn");
