import type { EndpointKey } from "./index";
import type { Handler, Handlers } from "../contract/verdict";
import type { RuntimeIdentities } from "./pod-gate/platform-identities";
import type { PodCreators } from "./pod-gate/creators";
import type { KubeApi } from "../contract/reads";
import type { RuleOf } from "./catalogue";
import { validateCocoonSet } from "./cocoonset/decide";
import { readsOf } from "./granted-reads";
import { validateHibernation } from "./hibernation";
import { podGate } from "./pod-gate/decide";
import { scaleGuard } from "./scale-guard";

export interface HandlerDeps {
  /** Who may create gated pods, and owned by which kinds (POD_CREATORS). */
  readonly podCreators: PodCreators;
  /** Who else may change a VM-backed pod's gate fields (RUNTIME_IDENTITIES). */
  readonly runtimeIdentities: RuntimeIdentities;
  /** The apiserver, as the handlers that read it see it. */
  readonly kube: KubeApi;
}

/**
 * Each endpoint's handler, bound to the dependencies it needs; the apiserver
 * only as far as the endpoint's entry in the table says it reads it.
 */
export function buildHandlers({ podCreators, runtimeIdentities, kube }: HandlerDeps): Handlers {
  const podGateDeps = { podCreators, runtimeIdentities, kube: readsOf("podGate", kube) };
  const scaleGuardDeps = { kube: readsOf("scaleGuard", kube) };
  const hibernationDeps = { kube: readsOf("cocoonHibernation", kube) };
  return {
    podGate: (request) => podGate(request, podGateDeps),
    scaleGuard: (request) => scaleGuard(request, scaleGuardDeps),
    cocoonSet: validateCocoonSet,
    cocoonHibernation: (request) => validateHibernation(request, hibernationDeps),
    // Each endpoint's denials list only that endpoint's rules.
  } satisfies { readonly [E in EndpointKey]: Handler<E, RuleOf<E>> };
}
