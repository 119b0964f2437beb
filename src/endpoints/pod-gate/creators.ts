import { COCOON_GROUP, COCOONSET_KIND } from "../../cocoon/crd-resources";
import {
  identityProblem,
  OPERATOR_USERNAME,
  SANDBOX_OPERATOR_USERNAME,
} from "../../cocoon/identities";
import { isDnsSubdomain } from "../../kube/name-grammar";

// POD_CREATORS: an ownerReference is set by the client and proves nothing on its own, so the
// authenticated requester gates, each trusted creator only for the owner kinds it manages.

/** By API group (the apiVersion without its version) and kind. */
export interface OwnerKind {
  readonly group: string;
  readonly kind: string;
}

export const COCOONSET_OWNER: OwnerKind = { group: COCOON_GROUP, kind: COCOONSET_KIND };
/** sandbox-operator's Sandbox (any version of the group: v1alpha1 and v1beta1 are served). */
export const SANDBOX_OWNER = {
  group: "agents.x-k8s.io",
  kind: "Sandbox",
} as const satisfies OwnerKind;

export type PodCreators = ReadonlyMap<string, readonly OwnerKind[]>;

export const ownerKindText = ({ group, kind }: OwnerKind): string => `${group}/${kind}`;

export const sameOwnerKind = (a: OwnerKind, b: OwnerKind): boolean =>
  a.group === b.group && a.kind === b.kind;

const creatorEntry = (identity: string, kinds: readonly OwnerKind[]) =>
  `${identity}=${kinds.map(ownerKindText).join("|")}`;

export const DEFAULT_POD_CREATORS = [
  creatorEntry(OPERATOR_USERNAME, [COCOONSET_OWNER]),
  creatorEntry(SANDBOX_OPERATOR_USERNAME, [SANDBOX_OWNER]),
].join(",");

/** CamelCase, as the API names kinds; a group is a DNS subdomain, as CRD groups are. */
const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;

/**
 * POD_CREATORS' `identity[=group/Kind[|group/Kind…]],…`: an entry without `=` pairs the identity
 * with CocoonSet; an identity named twice gets the kinds of both entries.
 */
export function parsePodCreators(
  text: string,
): { readonly podCreators: PodCreators } | { readonly problems: readonly string[] } {
  const podCreators = new Map<string, OwnerKind[]>();
  const problems: string[] = [];
  for (const entry of text.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const parsed = parseEntry(entry);
    if ("problem" in parsed) {
      problems.push(`entry "${entry}" ${parsed.problem}`);
      continue;
    }
    podCreators.set(
      parsed.identity,
      withKinds(podCreators.get(parsed.identity) ?? [], parsed.kinds),
    );
  }
  if (problems.length === 0 && podCreators.size === 0) {
    problems.push("must name at least one identity");
  }
  return problems.length > 0 ? { problems } : { podCreators };
}

type ParsedEntry =
  | { readonly identity: string; readonly kinds: readonly OwnerKind[] }
  | { readonly problem: string };

function parseEntry(entry: string): ParsedEntry {
  const separator = entry.indexOf("=");
  const identity = (separator < 0 ? entry : entry.slice(0, separator)).trim();
  if (identity === "") return { problem: "names no identity before '='" };
  const problem = identityProblem(identity);
  if (problem !== undefined) return { problem: `identity ${problem}` };
  if (separator < 0) {
    if (parseOwnerKind(identity) === undefined) return { identity, kinds: [COCOONSET_OWNER] };
    return { problem: "is a kind, not an identity; join one creator's kinds with '|', not ','" };
  }
  const kinds: OwnerKind[] = [];
  for (const text of entry.slice(separator + 1).split("|")) {
    const kind = parseOwnerKind(text.trim());
    if (kind === undefined) {
      return {
        problem:
          `has "${text.trim()}", which is not group/Kind ` +
          `(such as ${ownerKindText(COCOONSET_OWNER)}); list kinds as group/Kind|group/Kind`,
      };
    }
    kinds.push(kind);
  }
  return { identity, kinds };
}

function parseOwnerKind(text: string): OwnerKind | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const group = text.slice(0, slash);
  const kind = text.slice(slash + 1);
  return isDnsSubdomain(group) && KIND.test(kind) ? { group, kind } : undefined;
}

/** Every kind some creator is paired with, each once, in the order POD_CREATORS names them. */
function pairedOwnerKinds(podCreators: PodCreators): OwnerKind[] {
  return [...podCreators.values()].reduce<OwnerKind[]>(withKinds, []);
}

export const includesKind = (kinds: readonly OwnerKind[], kind: OwnerKind): boolean =>
  kinds.some((known) => sameOwnerKind(known, kind));

/** Of a pod's `owners`, those of a kind some creator is paired with. */
export function pairedOwners(owners: readonly OwnerKind[], podCreators: PodCreators): OwnerKind[] {
  const paired = pairedOwnerKinds(podCreators);
  return owners.filter((owner) => includesKind(paired, owner));
}

/** "CocoonSet or Sandbox owner (cocoonset.cocoonstack.io/CocoonSet, agents.x-k8s.io/Sandbox, …)". */
export function describeTrustedOwners(podCreators: PodCreators): string {
  const paired = pairedOwnerKinds(podCreators);
  const names = [...new Set(paired.map((kind) => kind.kind))].join(" or ");
  return `${names} owner (${paired.map(ownerKindText).join(", ")}, the kinds POD_CREATORS pairs with a creator)`;
}

function withKinds(kinds: OwnerKind[], more: readonly OwnerKind[]): OwnerKind[] {
  for (const kind of more) {
    if (!includesKind(kinds, kind)) kinds.push(kind);
  }
  return kinds;
}

export function creatorsOf(podCreators: PodCreators, kinds: readonly OwnerKind[]): string[] {
  return [...podCreators]
    .filter(([, paired]) => paired.some((kind) => includesKind(kinds, kind)))
    .map(([identity]) => identity);
}
