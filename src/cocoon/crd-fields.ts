/**
 * Every field the cocoon operator's v1 CRDs define, as a tree: the one list
 * the offline `validate` command checks manifests against, so a typo such as
 * `imgae:` is reported instead of being pruned by the apiserver. It mirrors
 * the operator's CocoonSet and CocoonHibernation types; a test compares it
 * with the openAPIV3Schema of the CRDs in test/fixtures/crds/ (or of any CRD
 * directory named by COCOON_CRD_DIR), so a field added or removed on either
 * side fails it.
 */

/** A field as far as unknown-field checks need it. */
export type FieldNode =
  /** An object with a fixed set of fields. */
  | { readonly type: "object"; readonly fields: Readonly<Record<string, FieldNode>> }
  /** A list whose items all have one shape. */
  | { readonly type: "list"; readonly items: FieldNode }
  /** An object with keys of the user's choosing (labels, resource limits). */
  | { readonly type: "map" }
  /** A string, number, boolean or quantity: nothing inside to check. */
  | { readonly type: "scalar" };

const SCALAR: FieldNode = { type: "scalar" };
const FREE_KEYS: FieldNode = { type: "map" };

function object(fields: Record<string, FieldNode>): FieldNode {
  return { type: "object", fields };
}

function listOf(items: FieldNode): FieldNode {
  return { type: "list", items };
}

function scalars(...names: string[]): Record<string, FieldNode> {
  return Object.fromEntries(names.map((name) => [name, SCALAR]));
}

/** The standard Kubernetes ObjectMeta fields; a CRD cannot add any. */
const objectMeta = object({
  ...scalars(
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
  ),
  labels: FREE_KEYS,
  annotations: FREE_KEYS,
  finalizers: listOf(SCALAR),
  ownerReferences: listOf(
    object(scalars("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")),
  ),
  managedFields: listOf(
    object({
      ...scalars("manager", "operation", "apiVersion", "time", "fieldsType", "subresource"),
      fieldsV1: FREE_KEYS,
    }),
  ),
});

/** metav1.Condition, as status conditions hold it. */
const condition = object(
  scalars("type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"),
);

/** corev1.ResourceRequirements. */
const resourceRequirements = object({
  limits: FREE_KEYS,
  requests: FREE_KEYS,
  claims: listOf(object(scalars("name", "request"))),
});

const keySelectorRef = object(scalars("name", "optional"));

/** corev1.EnvFromSource. */
const envFromSource = object({
  prefix: SCALAR,
  configMapRef: keySelectorRef,
  secretRef: keySelectorRef,
});

/** The VM options an agent and a toolbox share. */
const vmOptions = {
  ...scalars("os", "backend", "connType", "network", "forcePull", "noDirectIO", "probePort"),
  storage: SCALAR,
  resources: resourceRequirements,
};

const cocoonSetSpec = object({
  ...scalars(
    "suspend",
    "snapshotPolicy",
    "hibernatePolicy",
    "nodePool",
    "snapshotCompatibilityClass",
    "nodeName",
  ),
  agent: object({
    ...vmOptions,
    ...scalars("replicas", "image", "mode", "serviceAccountName"),
    envFrom: listOf(envFromSource),
  }),
  toolboxes: listOf(
    object({
      ...vmOptions,
      ...scalars("name", "image", "mode", "staticIP", "staticVMID", "vncPort"),
    }),
  ),
});

const cocoonSetStatus = object({
  ...scalars(
    "observedGeneration",
    "phase",
    "readyAgents",
    "desiredAgents",
    "readyToolboxes",
    "desiredToolboxes",
  ),
  agents: listOf(
    object(scalars("slot", "role", "podName", "vmName", "vmID", "ip", "phase", "forkedFrom")),
  ),
  toolboxes: listOf(
    object(scalars("name", "podName", "vmName", "vmID", "ip", "phase", "connType", "vncPort")),
  ),
  conditions: listOf(condition),
});

const hibernationSpec = object({
  podRef: object(scalars("name")),
  desire: SCALAR,
});

const hibernationStatus = object({
  ...scalars("observedGeneration", "phase", "vmName"),
  conditions: listOf(condition),
});

function resource(spec: FieldNode, status: FieldNode): FieldNode {
  return object({ ...scalars("apiVersion", "kind"), metadata: objectMeta, spec, status });
}

export const COCOONSET_FIELDS = resource(cocoonSetSpec, cocoonSetStatus);
export const COCOONHIBERNATION_FIELDS = resource(hibernationSpec, hibernationStatus);
