import { type ApiserverRead, ENDPOINTS, type EndpointKey } from "./index";
import type { ApiResource } from "../kube/api-resources";
import type { KubeApi } from "../contract/reads";

/**
 * The apiserver as `endpoint`'s handler may read it: only the reads its entry
 * in the endpoint table lists, which are what the generated RBAC role grants.
 * Any other read is a bug, not an apiserver failure: it throws a plain Error,
 * which the review answers as an internal error.
 */
export function readsOf(endpoint: EndpointKey, kube: KubeApi): KubeApi {
  const reads: readonly ApiserverRead[] = ENDPOINTS[endpoint].reads;
  const check = (verb: ApiserverRead["verb"], resource: ApiResource) => {
    const listed = reads.some(
      (read) =>
        read.verb === verb &&
        read.resource.group === resource.group &&
        read.resource.plural === resource.plural,
    );
    if (!listed) {
      throw new Error(
        `${ENDPOINTS[endpoint].label} would ${verb} ${resource.plural}, which its entry in the endpoint table ` +
          "does not list and RBAC does not grant",
      );
    }
  };
  return {
    async get(resource, object) {
      check("get", resource);
      return kube.get(resource, object);
    },
    async list(resource, namespace) {
      check("list", resource);
      return kube.list(resource, namespace);
    },
  };
}
