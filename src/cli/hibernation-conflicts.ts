import { collectViolations } from "../contract/violations";
import { checkNoOtherHibernation, type HibernationRuleId } from "../endpoints/hibernation";

type Seen = { readonly value: unknown; readonly where: string };

/**
 * A later CocoonHibernation conflicts with the one the webhook names first (the first live, else
 * the first terminating), so only those two are kept per pod.
 */
export class HibernationsByPod {
  readonly #firstByPod = new Map<string, { live?: Seen; terminating?: Seen }>();

  add(
    key: string,
    podName: string,
    metadata: { name: unknown; deletionTimestamp: unknown },
    where: () => string,
  ) {
    const first = this.#firstByPod.get(key) ?? {};
    this.#firstByPod.set(key, first);
    const earlier = first.live ?? first.terminating;
    const conflicts = earlier
      ? collectViolations<HibernationRuleId>((report) =>
          checkNoOtherHibernation(podName, [earlier.value], report),
        ).listed.map((violation) => ({ violation, earlier: earlier.where }))
      : [];
    const terminating =
      metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null;
    if (terminating ? !first.terminating : !first.live) {
      const kept = { value: { metadata, spec: { podRef: { name: podName } } }, where: where() };
      if (terminating) first.terminating = kept;
      else first.live = kept;
    }
    return conflicts;
  }
}
