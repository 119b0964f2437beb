import type { EndpointKey } from "../../src/endpoints/index";
import { gateOperations } from "../../src/http/operation-gate";
import type { AdmissionRequest } from "../../src/contract/admission-request";
import type { Verdict } from "../../src/contract/verdict";
import {
  DEFAULT_RUNTIME_IDENTITIES,
  parseRuntimeIdentities,
  type RuntimeIdentities,
} from "../../src/endpoints/pod-gate/platform-identities";
import {
  DEFAULT_POD_CREATORS,
  type PodCreators,
  parsePodCreators,
} from "../../src/endpoints/pod-gate/creators";
import { buildHandlers, type HandlerDeps } from "../../src/endpoints/handlers";
import { FakeKube } from "./fake-kube";

/**
 * What endpoint `endpoint` answers to `request`, as the admission factory
 * runs it: the table's operation gate, then the endpoint's handler. By
 * default POD_CREATORS and RUNTIME_IDENTITIES are their defaults and the
 * apiserver is an empty FakeKube.
 */
export function examine<E extends EndpointKey>(
  endpoint: E,
  request: AdmissionRequest,
  deps: Partial<HandlerDeps> = {},
): Promise<Verdict<E>> {
  const handlers = buildHandlers({
    podCreators: deps.podCreators ?? podCreators(DEFAULT_POD_CREATORS),
    runtimeIdentities: deps.runtimeIdentities ?? runtimeIdentities(DEFAULT_RUNTIME_IDENTITIES),
    kube: deps.kube ?? new FakeKube(),
  });
  return gateOperations(endpoint, handlers[endpoint])(request);
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
