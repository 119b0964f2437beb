import type { AdmissionRequest } from "../admission/review";
import { allowed, errored, type Verdict } from "../admission/verdict";
import { namespaceOf } from "../cocoon/namespace";
import { COCOONHIBERNATION_KIND, COCOONHIBERNATIONS } from "../cocoon/resources";
import type { KubeApi } from "../kube/port";
import type { HibernationRuleId } from "../rules/catalogue";
import {
  checkHibernation,
  checkNoOtherHibernation,
  podNameOf,
  readHibernation,
} from "../rules/hibernation";
import { quote } from "../rules/json-values";
import { collected, LISTED_VIOLATIONS_LIMIT } from "../violations";
import { readApiserver, retryOnceReachable } from "./apiserver-read";
import { ruleDenial } from "./rule-denial";

export interface HibernationDeps {
  readonly kube: KubeApi;
}

type HibernationVerdict = Verdict<"validate_cocoonhibernation", HibernationRuleId>;

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
  const broken = ruleDenial(
    COCOONHIBERNATION_KIND,
    collected<HibernationRuleId>(
      (report) => checkHibernation(hibernation, report),
      LISTED_VIOLATIONS_LIMIT,
    ),
  );
  if (broken) return broken;

  const podName = podNameOf(hibernation) ?? "";
  const namespace = namespaceOf(request.object, request.namespace);
  const cannotVerify = `cannot verify that pod ${quote(podName)} has no other CocoonHibernation`;
  // An empty namespace would LIST every namespace and match pods elsewhere.
  if (!namespace) return errored("list", `${cannotVerify}: the request names no namespace`);
  const listed = await readApiserver(() => deps.kube.list(COCOONHIBERNATIONS, namespace));
  if (!listed.ok) {
    return errored(
      "list",
      `${cannotVerify}: listing CocoonHibernations in namespace ${quote(namespace)} failed: ` +
        `${listed.failure}; ${retryOnceReachable("list", COCOONHIBERNATIONS.plural)}`,
    );
  }
  const conflicts = collected<HibernationRuleId>(
    (report) => checkNoOtherHibernation(podName, listed.answer, report),
    LISTED_VIOLATIONS_LIMIT,
  );
  return ruleDenial(COCOONHIBERNATION_KIND, conflicts) ?? allowed();
}
