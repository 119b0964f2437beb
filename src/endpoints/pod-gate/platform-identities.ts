import {
  GARBAGE_COLLECTOR_USERNAMES,
  identityProblem,
  NODE_USERNAME_PREFIX,
  VK_COCOON_USERNAME,
  VK_SANDBOX_USERNAME,
} from "../../cocoon/identities";
import type { PodCreators } from "./creators";

// RUNTIME_IDENTITIES: who besides POD_CREATORS' creators may change a VM-backed pod's gate fields.
// The matchConditions embed the same value, so the platform's runtime patches never reach us.

/** An entry that trusts every node credential, each only on the pods bound to its node. */
export const BOUND_NODES_ENTRY = `${NODE_USERNAME_PREFIX}*`;

export interface RuntimeIdentities {
  readonly usernames: ReadonlySet<string>;
  /** `system:node:<name>` may, on the pods whose spec.nodeName is `<name>`. */
  readonly boundNodes: boolean;
}

export const DEFAULT_RUNTIME_IDENTITIES = [
  VK_COCOON_USERNAME,
  VK_SANDBOX_USERNAME,
  BOUND_NODES_ENTRY,
  ...GARBAGE_COLLECTOR_USERNAMES,
].join(",");

/** Comma-separated usernames and `system:node:*`; an empty list leaves it to POD_CREATORS' creators. */
export function parseRuntimeIdentities(
  text: string,
): { readonly runtimeIdentities: RuntimeIdentities } | { readonly problems: readonly string[] } {
  const usernames = new Set<string>();
  let boundNodes = false;
  const problems: string[] = [];
  for (const entry of text.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    if (entry === BOUND_NODES_ENTRY) {
      boundNodes = true;
      continue;
    }
    const problem = identityProblem(entry);
    if (problem === undefined) usernames.add(entry);
    else problems.push(`entry "${entry}" ${problem}; name a username, or ${BOUND_NODES_ENTRY}`);
  }
  return problems.length > 0 ? { problems } : { runtimeIdentities: { usernames, boundNodes } };
}

export interface PlatformIdentities {
  readonly podCreators: PodCreators;
  readonly runtimeIdentities: RuntimeIdentities;
}

/** For a pod bound to `nodeName`: the stored pod's spec.nodeName, which no update changes. */
export function isPlatformIdentity(
  username: string,
  nodeName: unknown,
  { podCreators, runtimeIdentities }: PlatformIdentities,
): boolean {
  if (username === "") return false;
  if (podCreators.has(username) || runtimeIdentities.usernames.has(username)) return true;
  return (
    runtimeIdentities.boundNodes &&
    typeof nodeName === "string" &&
    nodeName !== "" &&
    username === `${NODE_USERNAME_PREFIX}${nodeName}`
  );
}

/** "POD_CREATORS' creators (…), RUNTIME_IDENTITIES (…)": who may, for a denial. */
export function describePlatformIdentities({
  podCreators,
  runtimeIdentities,
}: PlatformIdentities): string {
  const runtime = [...runtimeIdentities.usernames];
  if (runtimeIdentities.boundNodes) runtime.push("a node on the pods bound to it");
  return (
    `the creators POD_CREATORS names (${[...podCreators.keys()].join(", ")})` +
    (runtime.length > 0 ? ` and RUNTIME_IDENTITIES (${runtime.join(", ")})` : "")
  );
}
