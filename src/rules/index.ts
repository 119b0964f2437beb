import type { HandlerName, Rule } from "../admission/rule";
import type { Config } from "../config";
import type { KubeApi } from "../kube/port";
import { validateCocoonSet } from "./cocoonset";
import { validateHibernation } from "./hibernation";
import { podGate } from "./pod-gate";
import { scaleGuard } from "./scale-guard";

/** Binds each handler's rule to the configuration and apiserver port it needs. */
export function buildRules(config: Config, kube: KubeApi): Record<HandlerName, Rule> {
  const podGateDeps = { podCreators: config.POD_CREATORS, kube };
  const apiserverDeps = { kube };
  return {
    mutate: (request) => podGate(request, podGateDeps),
    validate: (request) => scaleGuard(request, apiserverDeps),
    validate_cocoonset: validateCocoonSet,
    validate_cocoonhibernation: (request) => validateHibernation(request, apiserverDeps),
  };
}
