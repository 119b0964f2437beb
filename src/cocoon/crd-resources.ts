import { anyFields } from "../kube/answer-fields";
import type { ApiResource } from "../kube/api-resources";

export const COCOON_GROUP = "cocoonset.cocoonstack.io";
export const COCOON_VERSION = "v1";

export const COCOONSET_KIND = "CocoonSet";
export const COCOONHIBERNATION_KIND = "CocoonHibernation";
export const COCOONHIBERNATION_PLURAL = "cocoonhibernations";

export const COCOONHIBERNATIONS = {
  group: COCOON_GROUP,
  version: COCOON_VERSION,
  kind: COCOONHIBERNATION_KIND,
  plural: COCOONHIBERNATION_PLURAL,
  namespaced: true,
  fields: anyFields,
} as const satisfies ApiResource;
