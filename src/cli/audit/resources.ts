import { z } from "zod";
import {
  COCOON_GROUP,
  COCOON_VERSION,
  COCOONHIBERNATION_KIND,
  COCOONHIBERNATIONS,
  COCOONSET_KIND,
} from "../../cocoon/crd-resources";
import { jsonObjectList } from "../../json/read";
import {
  type ApiResource,
  DEPLOYMENTS,
  NODES,
  PODS,
  STATEFULSETS,
  workloadFields,
} from "../../kube/api-resources";

/*
 * What audit lists, and the fields of each item it reads, typed strictly: a
 * mistyped field means the answer is not a real object of that kind, and the
 * kind is reported as not checked rather than read as absent. The cocoon
 * custom resources are read whole by the rules, which report a mistyped field
 * as a finding, as the webhook does.
 */

const objectMeta = z.looseObject({ name: z.string().min(1), namespace: z.string().min(1) });

const podMeta = objectMeta.extend({
  annotations: z.record(z.string(), z.string()).nullish(),
  ownerReferences: jsonObjectList.nullish(),
  managedFields: jsonObjectList.nullish(),
});

export const AUDITED_COCOONSETS = {
  group: COCOON_GROUP,
  version: COCOON_VERSION,
  kind: COCOONSET_KIND,
  plural: "cocoonsets",
  namespaced: true,
  fields: z.looseObject({ metadata: objectMeta }),
} as const satisfies ApiResource;

export const AUDITED_HIBERNATIONS = {
  ...COCOONHIBERNATIONS,
  kind: COCOONHIBERNATION_KIND,
  fields: z.looseObject({ metadata: objectMeta }),
} as const satisfies ApiResource;

export const AUDITED_PODS = {
  ...PODS,
  fields: z.looseObject({
    metadata: podMeta,
    spec: z.looseObject({
      nodeName: z.string().nullish(),
      tolerations: jsonObjectList.nullish(),
    }),
  }),
} as const satisfies ApiResource;

export const AUDITED_NODES = {
  ...NODES,
  fields: z.looseObject({
    metadata: z.looseObject({ name: z.string().min(1) }),
    spec: z.looseObject({ taints: jsonObjectList.nullish() }).nullish(),
  }),
} as const satisfies ApiResource;

const workloadItem = workloadFields.and(z.looseObject({ metadata: objectMeta }));

export const AUDITED_DEPLOYMENTS = { ...DEPLOYMENTS, fields: workloadItem } as const;
export const AUDITED_STATEFULSETS = { ...STATEFULSETS, fields: workloadItem } as const;
