import type { Handlers } from "../admission/verdict";
import type { KubeApi } from "../kube/port";
import { validateCocoonSet } from "./cocoonset";
import { validateHibernation } from "./hibernation";
import { podGate } from "./pod-gate";
import { scaleGuard } from "./scale-guard";

export interface HandlerDeps {
  /** Usernames allowed to create gated pods (POD_CREATORS). */
  readonly podCreators: ReadonlySet<string>;
  /** The apiserver, as the handlers that read it see it. */
  readonly kube: KubeApi;
}

/** Each endpoint's handler, bound to the dependencies it needs. */
export function buildHandlers(deps: HandlerDeps): Handlers {
  return {
    mutate: (request) => podGate(request, deps),
    validate: (request) => scaleGuard(request, deps),
    validate_cocoonset: validateCocoonSet,
    validate_cocoonhibernation: (request) => validateHibernation(request, deps),
  };
}
