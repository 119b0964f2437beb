import type { AdmissionRequest } from "../admission/review";
import { allowed, denied, errored, type Verdict } from "../admission/verdict";
import { namespaceOf } from "../cocoon/namespace";
import { type KubeApi, KubeApiError } from "../kube/port";
import { reasonOf } from "../rules/catalogue";
import {
  conflictingHibernations,
  type HibernationViolation,
  podNameOf,
  readHibernation,
  violationsOf,
} from "../rules/hibernation";
import { quote } from "../rules/json-values";
import { collectViolations, describeCollected, LISTED_VIOLATIONS_LIMIT } from "../rules/violation";

export interface HibernationDeps {
  readonly kube: KubeApi;
}

type HibernationVerdict = Verdict<"validate_cocoonhibernation">;

/**
 * `/validate-cocoonhibernation`: CREATE only. The LIST fails
 * closed: without it a second CR for the same pod could slip in.
 */
export async function validateHibernation(
  request: AdmissionRequest,
  deps: HibernationDeps,
): Promise<HibernationVerdict> {
  const hibernation = readHibernation(request.object);
  if (!hibernation) {
    return errored(
      "decode",
      "the request's object is not a JSON object, so it cannot be a CocoonHibernation",
    );
  }
  const violations = violationsOf(hibernation);
  const [broken] = violations;
  if (broken) return deny(broken, violations);

  const podName = podNameOf(hibernation) ?? "";
  const namespace = namespaceOf(request.object, request.namespace);
  // An empty namespace would LIST every namespace and match pods elsewhere.
  if (!namespace) {
    return errored(
      "list",
      `cannot verify that pod ${quote(podName)} has no other CocoonHibernation: the request names no namespace`,
    );
  }
  let items: readonly unknown[];
  try {
    items = await deps.kube.listHibernations(namespace);
  } catch (error) {
    // Anything but an apiserver failure is a bug, left to admit() to report as an internal error.
    if (!(error instanceof KubeApiError)) throw error;
    return errored(
      "list",
      `cannot verify that pod ${quote(podName)} has no other CocoonHibernation: listing ` +
        `CocoonHibernations in namespace ${quote(namespace)} failed: ${error.message}; retry once ` +
        "the webhook can reach the Kubernetes API (check its network path, its RBAC to list " +
        "cocoonhibernations, and APISERVER_TIMEOUT)",
    );
  }
  const conflicts = conflictingHibernations(podName, items);
  const [conflict] = conflicts;
  return conflict ? deny(conflict, conflicts) : allowed();
}

/** One denial listing the violations up to the cap; the `first` one's rule gives the reason. */
function deny(
  first: HibernationViolation,
  violations: readonly HibernationViolation[],
): HibernationVerdict {
  const collector = collectViolations(LISTED_VIOLATIONS_LIMIT);
  for (const each of violations) collector.report(each.rule, () => each);
  const found = collector.collected();
  return denied(
    reasonOf(first.rule),
    `invalid CocoonHibernation: ${describeCollected(found)}`,
    found,
  );
}
