import { DNS_LABEL_MAX_LENGTH } from "../kube/name-grammar";

// The operator derives a pod and a VM name per slot and per toolbox; the VM name is also the
// snapshot repository and the guest hostname, so it is a DNS label too.

export const DERIVED_NAME_LIMIT = DNS_LABEL_MAX_LENGTH;

/** The apiserver appends this many random characters to `metadata.generateName`. */
export const GENERATED_NAME_SUFFIX_LENGTH = 5;

/** Stands in for the random suffix in reported names; only its length matters. */
export const GENERATED_NAME_PLACEHOLDER = "x".repeat(GENERATED_NAME_SUFFIX_LENGTH);

interface SetNaming {
  readonly name?: string | undefined;
  readonly generateName?: string | undefined;
}

export function derivedSetName({ name, generateName }: SetNaming): string | undefined {
  if (name) return name;
  if (generateName) return generateName + GENERATED_NAME_PLACEHOLDER;
  return undefined;
}

type SetMember = number | string;

export const deriveName = {
  pod: (_namespace: string, set: string, member: SetMember) => `${set}-${member}`,
  VM: (namespace: string, set: string, member: SetMember) => `vk-${namespace}-${set}-${member}`,
};

type DerivedNameKind = keyof typeof deriveName;

const DERIVED_NAME_KINDS = Object.keys(deriveName) as DerivedNameKind[];

/** Members whose derived names have equal length: slots of equal decimal width, or one toolbox. */
interface MemberRun {
  readonly firstMember: SetMember;
  readonly lastMember: SetMember;
  readonly count: number;
}

/** Derived names over the limit, a run of members reported once as `first … last`. */
export interface OverlongNames extends MemberRun {
  readonly kind: DerivedNameKind;
  readonly first: string;
  readonly last: string;
  readonly length: number;
}

export function slotRunsByWidth(replicas: number): MemberRun[] {
  const runs: MemberRun[] = [];
  let first = 0;
  for (let width = 1; first <= replicas; width++) {
    const last = Math.min(10 ** width - 1, replicas);
    runs.push({ firstMember: first, lastMember: last, count: last - first + 1 });
    first = last + 1;
  }
  return runs;
}

function overlongNames(namespace: string, set: string, runs: MemberRun[]): OverlongNames[] {
  const overlong: OverlongNames[] = [];
  for (const kind of DERIVED_NAME_KINDS) {
    for (const run of runs) {
      const first = deriveName[kind](namespace, set, run.firstMember);
      if (first.length <= DERIVED_NAME_LIMIT) continue;
      const last = deriveName[kind](namespace, set, run.lastMember);
      overlong.push({ ...run, kind, first, last, length: first.length });
    }
  }
  return overlong;
}

export function overlongSlotNames(
  namespace: string,
  set: string,
  replicas: number,
): OverlongNames[] {
  return overlongNames(namespace, set, slotRunsByWidth(Math.max(0, replicas)));
}

export function overlongToolboxNames(
  namespace: string,
  set: string,
  toolbox: string,
): OverlongNames[] {
  return overlongNames(namespace, set, [{ firstMember: toolbox, lastMember: toolbox, count: 1 }]);
}
