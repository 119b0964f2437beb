import { collectViolations, type Violation } from "../contract/violations";
import { checkNoOtherHibernation, type HibernationRuleId } from "../endpoints/hibernation";

interface Seen {
  readonly value: unknown;
  readonly where: string;
}

export interface SeenHibernation {
  /** `namespace/pod`: the rule holds within a namespace. */
  readonly key: string;
  readonly podName: string;
  readonly name: unknown;
  readonly deletionTimestamp: unknown;
  /** Where the object is, asked for only when it is kept. */
  readonly where: () => string;
}

/**
 * The one-per-pod rule over CocoonHibernations seen one at a time: a later one conflicts with the
 * one the webhook names first (the first live, else the first terminating), so only those two are
 * kept per pod, as the fields the rule reads.
 */
export class HibernationsByPod {
  readonly #firstByPod = new Map<string, { live?: Seen; terminating?: Seen }>();

  /** The violations of this hibernation against those seen before it, each with where that one is. */
  add(seen: SeenHibernation): { violation: Violation<HibernationRuleId>; earlier: string }[] {
    const first = this.#firstByPod.get(seen.key) ?? {};
    this.#firstByPod.set(seen.key, first);
    const earlier = first.live ?? first.terminating;
    const conflicts = earlier
      ? collectViolations<HibernationRuleId>((report) =>
          checkNoOtherHibernation(seen.podName, [earlier.value], report),
        ).listed.map((violation) => ({ violation, earlier: earlier.where }))
      : [];
    const { deletionTimestamp } = seen;
    const terminating = deletionTimestamp !== undefined && deletionTimestamp !== null;
    if (terminating ? !first.terminating : !first.live) {
      const kept: Seen = {
        value: {
          metadata: { name: seen.name, deletionTimestamp },
          spec: { podRef: { name: seen.podName } },
        },
        where: seen.where(),
      };
      if (terminating) first.terminating = kept;
      else first.live = kept;
    }
    return conflicts;
  }
}
