/**
 * Every field the cocoon operator's v1 CRDs define, as a tree: the one list
 * the offline `validate` command checks manifests against, so a typo such as
 * `imgae:` is reported instead of being pruned by the apiserver. It mirrors
 * the operator's CocoonSet and CocoonHibernation types; a test compares it
 * with the openAPIV3Schema of the CRDs in test/fixtures/crds/ (or of any CRD
 * directory named by COCOON_CRD_DIR), so a field added or removed on either
 * side fails it.
 *
 * The CocoonSet spec's nodes also say how the operator's Go types hold each
 * field, which decides when two specs are the same to it (spec-equality.ts):
 * a value field has a zero value that reads the same as absent, a pointer
 * field (`storage`, `configMapRef`, `optional`) does not.
 */

/** The zero value of a Go value field, which `encoding/json` reads from an absent or null one. */
export type GoZero = false | 0 | "";

/** A field as far as unknown-field checks, and spec equality, need it. */
export type FieldNode =
  /**
   * An object with a fixed set of fields. `pointer`: the Go field is a
   * pointer, so absent and `{}` differ; otherwise absent reads as `{}`.
   */
  | {
      readonly type: "object";
      readonly fields: Readonly<Record<string, FieldNode>>;
      readonly pointer?: true;
    }
  /** A list whose items all have one shape. */
  | { readonly type: "list"; readonly items: FieldNode }
  /** An object with keys of the user's choosing (labels, resource limits), values of `values`. */
  | { readonly type: "map"; readonly values?: FieldNode }
  /**
   * A string, number, boolean or quantity: nothing inside to check. `zero`:
   * what absent reads as in the Go type (none for a pointer); `quantity`: a
   * resource quantity, equal to another spelling of the same amount.
   */
  | { readonly type: "scalar"; readonly zero?: GoZero; readonly quantity?: true };

const SCALAR: FieldNode = { type: "scalar" };
const FREE_KEYS: FieldNode = { type: "map" };
const BOOL: FieldNode = { type: "scalar", zero: false };
const INT: FieldNode = { type: "scalar", zero: 0 };
const STRING: FieldNode = { type: "scalar", zero: "" };
/** `*resource.Quantity`: absent is nil, not zero. */
const QUANTITY_POINTER: FieldNode = { type: "scalar", quantity: true };
/** `corev1.ResourceList`: resource names to quantities. */
const RESOURCE_LIST: FieldNode = { type: "map", values: { type: "scalar", quantity: true } };

function object(fields: Record<string, FieldNode>): FieldNode {
  return { type: "object", fields };
}

function pointerTo(fields: Record<string, FieldNode>): FieldNode {
  return { type: "object", fields, pointer: true };
}

function listOf(items: FieldNode): FieldNode {
  return { type: "list", items };
}

function scalars(...names: string[]): Record<string, FieldNode> {
  return fieldsOf(SCALAR, ...names);
}

function fieldsOf(node: FieldNode, ...names: string[]): Record<string, FieldNode> {
  return Object.fromEntries(names.map((name) => [name, node]));
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

/*
 * The spec as cocoon-common's apis/v1 Go types hold it (v0.3.0, with
 * k8s.io/api's corev1 types inside): every field is a value field except
 * `storage` (*resource.Quantity) and, in envFrom, `configMapRef`/`secretRef`
 * and their `optional` (pointers).
 */

/** corev1.ResourceRequirements (a value field of the VM options). */
const resourceRequirements = object({
  limits: RESOURCE_LIST,
  requests: RESOURCE_LIST,
  claims: listOf(object(fieldsOf(STRING, "name", "request"))),
});

/** corev1.ConfigMapEnvSource / SecretEnvSource, behind a pointer; `optional` is a *bool. */
const envSourceRef = pointerTo({ name: STRING, optional: SCALAR });

/** corev1.EnvFromSource. */
const envFromSource = object({
  prefix: STRING,
  configMapRef: envSourceRef,
  secretRef: envSourceRef,
});

/** The VM options an agent and a toolbox share. */
const vmOptions = {
  ...fieldsOf(STRING, "os", "backend", "connType", "network"),
  ...fieldsOf(BOOL, "forcePull", "noDirectIO"),
  probePort: INT,
  storage: QUANTITY_POINTER,
  resources: resourceRequirements,
};

/** The CocoonSet spec: what the operator writes back whole on every Update. */
export const COCOONSET_SPEC_FIELDS = object({
  suspend: BOOL,
  ...fieldsOf(
    STRING,
    "snapshotPolicy",
    "hibernatePolicy",
    "nodePool",
    "snapshotCompatibilityClass",
    "nodeName",
  ),
  agent: object({
    ...vmOptions,
    replicas: INT,
    ...fieldsOf(STRING, "image", "mode", "serviceAccountName"),
    envFrom: listOf(envFromSource),
  }),
  toolboxes: listOf(
    object({
      ...vmOptions,
      ...fieldsOf(STRING, "name", "image", "mode", "staticIP", "staticVMID"),
      vncPort: INT,
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

export const COCOONSET_FIELDS = resource(COCOONSET_SPEC_FIELDS, cocoonSetStatus);
export const COCOONHIBERNATION_FIELDS = resource(hibernationSpec, hibernationStatus);
