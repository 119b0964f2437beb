import {
  type AdmissionReviewBody,
  admissionReview,
  COCOONSET_KIND,
  COCOONSET_RESOURCE,
} from "./admission-review";

/*
 * The largest reviews the apiserver can send: a CocoonSet UPDATE carrying
 * two objects of about 1.45 MiB each (etcd refuses a request over 1.5 MiB),
 * in shapes the CRD lets through to the validating webhook, and one a client
 * talking to the webhook directly could send (toolboxes without names).
 */

/** Bytes of JSON each object is filled to. */
export const MAX_OBJECT_BYTES = Math.floor(1.45 * 1024 * 1024);

/** How deep the apiserver's JSON decoder lets a document nest. */
const APISERVER_MAX_DEPTH = 10_000;

export type MaxSizeShape = "empty toolboxes" | "named toolboxes" | "deep nesting" | "long strings";

export const MAX_SIZE_SHAPES: readonly MaxSizeShape[] = [
  "empty toolboxes",
  "named toolboxes",
  "deep nesting",
  "long strings",
];

const metadata = { name: "huge", namespace: "team-a" };

/** A JSON object nested `depth` levels deep, the way managedFields' fieldsV1 nests field sets. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 0; level < depth; level++) value = { "f:a": value };
  return value;
}

/** One CocoonSet of about MAX_OBJECT_BYTES; `variant` makes the old and new spec differ. */
export function maxSizeCocoonSet(shape: MaxSizeShape, variant: string): Record<string, unknown> {
  const base = { apiVersion: "cocoonset.cocoonstack.io/v1", kind: "CocoonSet", metadata };
  const agent = { image: `cocoonstack/agent:${variant}` };
  switch (shape) {
    case "empty toolboxes":
      // 3 bytes each: `{},`
      return { ...base, spec: { agent, toolboxes: filled(MAX_OBJECT_BYTES / 3, () => ({})) } };
    case "named toolboxes": {
      // About 18 bytes each: `{"name":"t12345"},`
      const toolboxes = filled(MAX_OBJECT_BYTES / 18, (index) => ({ name: `t${index}` }));
      return { ...base, spec: { agent, toolboxes } };
    }
    case "deep nesting": {
      // Each field set nests as deep as the apiserver decodes: 8 bytes a level, `{"f:a":` and `}`.
      const fieldSets = filled(MAX_OBJECT_BYTES / (8 * APISERVER_MAX_DEPTH), () => ({
        manager: "kubectl",
        operation: "Update",
        fieldsType: "FieldsV1",
        fieldsV1: nested(APISERVER_MAX_DEPTH),
      }));
      return { ...base, metadata: { ...metadata, managedFields: fieldSets }, spec: { agent } };
    }
    case "long strings":
      return {
        ...base,
        spec: { agent: { image: `${"a".repeat(MAX_OBJECT_BYTES)}:${variant}`, mode: "clone" } },
      };
  }
}

function filled<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: Math.floor(count) }, (_, index) => make(index));
}

/** A CocoonSet UPDATE of two max-size objects of `shape`, by alice. */
export function maxSizeUpdate(shape: MaxSizeShape): AdmissionReviewBody {
  return admissionReview({
    kind: COCOONSET_KIND,
    resource: COCOONSET_RESOURCE,
    operation: "UPDATE",
    namespace: "team-a",
    name: "huge",
    username: "alice",
    object: maxSizeCocoonSet(shape, "new"),
    oldObject: maxSizeCocoonSet(shape, "old"),
  });
}
