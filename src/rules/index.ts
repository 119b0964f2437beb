import type { HandlerName, Rule } from "../admission/rule";
import type { Config } from "../config";
import type { KubeApi } from "../kube/port";
import { validateCocoonSet } from "./cocoonset";
import { validateHibernation } from "./hibernation";
import { podGate } from "./pod-gate";
import { scaleGuard } from "./scale-guard";

/** Binds each handler's rule to the configuration and apiserver port it needs. */
export function buildRules(config: Config, kube: KubeApi): Record<HandlerName, Rule> {
  return {
    mutate: (request) => podGate(request, { podCreators: config.POD_CREATORS }),
    validate: (request) => scaleGuard(request, { kube }),
    validate_cocoonset: (request) => validateCocoonSet(request),
    validate_cocoonhibernation: (request) => validateHibernation(request, { kube }),
  };
}
