import type { AdmissionRequest } from "../../src/contract/admission-request";
import type { Verdict } from "../../src/contract/verdict";
import {
  bindDecisions,
  type EndpointDeps,
  type EndpointKey,
  type VerdictOf,
} from "../../src/endpoints";
import {
  DEFAULT_POD_CREATORS,
  type PodCreators,
  parsePodCreators,
} from "../../src/endpoints/pod-gate/creators";
import {
  DEFAULT_RUNTIME_IDENTITIES,
  parseRuntimeIdentities,
  type RuntimeIdentities,
} from "../../src/endpoints/pod-gate/platform-identities";
import { examinedOnly } from "../../src/http/review-chain";
import { FakeKube } from "./fake-kube";

/**
 * What endpoint `endpoint` answers to `request`, as the admission factory
 * runs it: the operation gate, then the endpoint's decision. By
 * default POD_CREATORS and RUNTIME_IDENTITIES are their defaults and the
 * apiserver is an empty FakeKube.
 */
export function examine<E extends EndpointKey>(
  endpoint: E,
  request: AdmissionRequest,
  deps: Partial<EndpointDeps> = {},
): Promise<VerdictOf<E>> {
  const decisions = bindDecisions({
    podCreators: deps.podCreators ?? podCreators(DEFAULT_POD_CREATORS),
    runtimeIdentities: deps.runtimeIdentities ?? runtimeIdentities(DEFAULT_RUNTIME_IDENTITIES),
    kube: deps.kube ?? new FakeKube(),
  });
  return examinedOnly(endpoint, decisions[endpoint])(request);
}

/** The message of a refusal; throws when the verdict let the request through. */
export function refusalMessage(verdict: Verdict): string {
  if (verdict.allowed)
    throw new Error(`expected a refusal, got ${verdict.result}/${verdict.reason}`);
  return verdict.message;
}

/** POD_CREATORS as the webhook reads `text`; throws on a malformed entry. */
export function podCreators(text: string): PodCreators {
  const parsed = parsePodCreators(text);
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed.podCreators;
}

/** RUNTIME_IDENTITIES as the webhook reads `text`; throws on a malformed entry. */
export function runtimeIdentities(text: string): RuntimeIdentities {
  const parsed = parseRuntimeIdentities(text);
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "));
  return parsed.runtimeIdentities;
}
