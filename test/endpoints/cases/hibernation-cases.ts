import { z } from "zod";
import type { Violation } from "../../../src/contract/violations";
import { collectViolations } from "../../../src/contract/violations";
import type { HibernationRuleId } from "../../../src/endpoints/hibernation";
import { checkNoOtherHibernation, hibernationViolations } from "../../../src/endpoints/hibernation";
import { hibernation } from "./builders";

export interface HibernationCase {
  readonly name: string;
  readonly object: unknown;
  /** The CocoonHibernations a LIST of the namespace returns. */
  readonly existing?: readonly unknown[];
}

export interface FailingHibernationCase extends HibernationCase {
  readonly paths: readonly string[];
}

export interface HibernationRuleCases {
  readonly failing: readonly FailingHibernationCase[];
  readonly passing: readonly HibernationCase[];
}

const podRefSchema = z.object({ spec: z.object({ podRef: z.object({ name: z.string() }) }) });

/** What the object breaks on its own plus what the existing CRs make it break. */
export function hibernationCaseViolations({ object, existing = [] }: HibernationCase): Violation[] {
  const own = hibernationViolations(object) ?? [];
  const target = podRefSchema.safeParse(object);
  if (!target.success) return own;
  const podName = target.data.spec.podRef.name;
  const conflicts = collectViolations<HibernationRuleId>((report) =>
    checkNoOtherHibernation(podName, existing, report),
  );
  return [...own, ...conflicts.listed];
}

const terminating = { deletionTimestamp: "2026-01-01T00:00:00Z" };

export const HIBERNATION_CASES: Record<HibernationRuleId, HibernationRuleCases> = {
  "hibernation.desire": {
    failing: [
      ...[undefined, "hibernate", "WAKE", "Sleep", "", 1].map((desire) => ({
        name: `desire ${String(desire)}`,
        object: hibernation({ desire }),
        paths: ["spec.desire"],
      })),
    ],
    passing: [
      { name: "Hibernate", object: hibernation({ desire: "Hibernate" }) },
      { name: "Wake", object: hibernation({ desire: "Wake" }) },
    ],
  },
  "hibernation.name-matches-pod": {
    failing: [
      {
        name: "named differently",
        object: hibernation({ name: "sleep-demo-0" }),
        paths: ["metadata.name"],
      },
      {
        name: "no name (generateName)",
        object: hibernation({ name: undefined }),
        paths: ["metadata.name"],
      },
      {
        name: "no pod",
        object: hibernation({ pod: undefined, name: "demo-0" }),
        paths: ["spec.podRef.name"],
      },
      {
        name: "pod is a number",
        object: hibernation({ pod: 7, name: "7" }),
        paths: ["spec.podRef.name"],
      },
    ],
    passing: [{ name: "named after its pod", object: hibernation({ pod: "demo-3" }) }],
  },
  "hibernation.one-per-pod": {
    failing: [
      {
        name: "a live CR with another name targets the pod",
        object: hibernation(),
        existing: [hibernation({ name: "old-request" })],
        paths: ["spec.podRef.name"],
      },
    ],
    passing: [
      {
        name: "existing CRs target other pods",
        object: hibernation(),
        existing: [hibernation({ pod: "demo-1" }), hibernation({ pod: "other-0" })],
      },
      {
        name: "undecodable items are ignored",
        object: hibernation(),
        existing: [
          null,
          "garbage",
          { metadata: { name: "demo-0" } },
          { spec: { podRef: { name: 5 } } },
        ],
      },
    ],
  },
  "hibernation.wait-for-terminating": {
    failing: [
      {
        name: "a terminating CR targets the pod",
        object: hibernation(),
        existing: [hibernation({ ...terminating })],
        paths: ["spec.podRef.name"],
      },
    ],
    passing: [
      {
        name: "a terminating CR for another pod",
        object: hibernation(),
        existing: [hibernation({ pod: "demo-1", ...terminating })],
      },
    ],
  },
};
