import { DNS_LABEL_MAX_LENGTH } from "../kube/name-grammar";

/*
 * The names the operator derives from a CocoonSet (the derived name budget):
 * one pod and one VM per agent slot (0 … spec.agent.replicas) and per
 * toolbox. The VM name is also the snapshot repository in the registry and
 * the guest hostname, so it shares the DNS label limit with the pod name.
 */

/** Every derived name is a DNS label, as pod names, VM names and hostnames must be. */
export const DERIVED_NAME_LIMIT = DNS_LABEL_MAX_LENGTH;

/** The apiserver appends this many random characters to `metadata.generateName`. */
export const GENERATED_NAME_SUFFIX_LENGTH = 5;

/** Stands in for the random suffix in reported names; only its length matters. */
export const GENERATED_NAME_PLACEHOLDER = "x".repeat(GENERATED_NAME_SUFFIX_LENGTH);

export interface SetNaming {
  readonly name?: string | undefined;
  readonly generateName?: string | undefined;
}

/** `<set>` as the derived names will contain it, or undefined when neither name is set. */
export function derivedSetName({ name, generateName }: SetNaming): string | undefined {
  if (name) return name;
  if (generateName) return generateName + GENERATED_NAME_PLACEHOLDER;
  return undefined;
}

/** A slot number or a toolbox name. */
export type SetMember = number | string;

export const derivedPodName = (set: string, member: SetMember): string => `${set}-${member}`;

export const derivedVmName = (namespace: string, set: string, member: SetMember): string =>
  `vk-${namespace}-${set}-${member}`;

export type DerivedNameKind = "pod" | "VM";

/**
 * Derived names over the limit. Slot names of equal decimal width have equal
 * length, so a run of slots is reported once as `first … last` with its
 * `count` instead of listing up to replicas+1 names; a toolbox name is a run
 * of one.
 */
export interface OverlongNames {
  readonly kind: DerivedNameKind;
  /** The slot or toolbox the first name belongs to. */
  readonly firstMember: SetMember;
  readonly first: string;
  readonly last: string;
  readonly count: number;
  readonly length: number;
}

interface SlotRun {
  readonly first: number;
  readonly last: number;
}

/** Slots 0 … replicas split into runs of equal decimal width: 0–9, 10–99, … */
export function slotRunsByWidth(replicas: number): SlotRun[] {
  const runs: SlotRun[] = [];
  let first = 0;
  for (let width = 1; first <= replicas; width++) {
    const last = Math.min(10 ** width - 1, replicas);
    runs.push({ first, last });
    first = last + 1;
  }
  return runs;
}

const deriveName: Record<
  DerivedNameKind,
  (namespace: string, set: string, member: SetMember) => string
> = {
  pod: (_namespace, set, member) => derivedPodName(set, member),
  VM: derivedVmName,
};

const DERIVED_NAME_KINDS = Object.keys(deriveName) as DerivedNameKind[];

/** Pod and VM names of agent slots 0 … replicas that exceed the limit. */
export function overlongSlotNames(
  namespace: string,
  set: string,
  replicas: number,
): OverlongNames[] {
  const overlong: OverlongNames[] = [];
  for (const kind of DERIVED_NAME_KINDS) {
    for (const { first, last } of slotRunsByWidth(Math.max(0, replicas))) {
      const firstName = deriveName[kind](namespace, set, first);
      if (firstName.length <= DERIVED_NAME_LIMIT) continue;
      overlong.push({
        kind,
        firstMember: first,
        first: firstName,
        last: deriveName[kind](namespace, set, last),
        count: last - first + 1,
        length: firstName.length,
      });
    }
  }
  return overlong;
}

/** Pod and VM names of one toolbox that exceed the limit. */
export function overlongToolboxNames(
  namespace: string,
  set: string,
  toolbox: string,
): OverlongNames[] {
  return DERIVED_NAME_KINDS.flatMap((kind) => {
    const name = deriveName[kind](namespace, set, toolbox);
    if (name.length <= DERIVED_NAME_LIMIT) return [];
    return [{ kind, firstMember: toolbox, first: name, last: name, count: 1, length: name.length }];
  });
}
