/** API group and version of the cocoon custom resources. */
export const COCOON_GROUP = "cocoonset.cocoonstack.io";
export const COCOON_VERSION = "v1";

export const COCOONSET_KIND = "CocoonSet";
export const COCOONHIBERNATION_KIND = "CocoonHibernation";
export const COCOONHIBERNATION_PLURAL = "cocoonhibernations";
