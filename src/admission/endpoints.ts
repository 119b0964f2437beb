/**
 * The admission endpoints, one entry each: the path the webhook
 * configurations call, the `handler` metric label (the entry's key), the
 * operations its handler examines, and every reason its verdicts can carry.
 * The listener's routes, the operation gate, the metric label sets, the
 * verdict types and the manifest and monitoring tests all read this table;
 * a new endpoint is one entry here plus its handler in `handlers/`.
 */

/** The operations an AdmissionReview can carry. */
export const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Reasons every endpoint can answer with: the operation gate's, and the factory's for a handler that threw. */
export const COMMON_REASONS = {
  skipped: ["operation"],
  deny: [],
  error: ["internal"],
} as const;

interface EndpointSpec {
  readonly path: `/${string}`;
  readonly operations: readonly Operation[];
  readonly reasons: {
    readonly skipped: readonly string[];
    readonly deny: readonly string[];
    readonly error: readonly string[];
  };
}

export const ENDPOINTS = {
  mutate: {
    path: "/mutate",
    // Bindings are create-only in the Kubernetes API; Pods are examined on CREATE and UPDATE.
    operations: ["CREATE", "UPDATE"],
    reasons: {
      skipped: ["kind", "decode", "not_cocoon", "no_change", "scheduler"],
      deny: ["not_owned", "creator", "invalid_name", "unmarked_binding"],
      error: ["node_fetch", "pod_fetch"],
    },
  },
  validate: {
    path: "/validate",
    operations: ["UPDATE"],
    reasons: {
      skipped: ["kind", "decode", "no_parent", "not_cocoon"],
      deny: ["scale_down"],
      error: ["parent_fetch"],
    },
  },
  validate_cocoonset: {
    path: "/validate-cocoonset",
    operations: ["CREATE", "UPDATE"],
    reasons: {
      skipped: ["no_change"],
      deny: ["invalid_spec"],
      error: ["decode"],
    },
  },
  validate_cocoonhibernation: {
    path: "/validate-cocoonhibernation",
    operations: ["CREATE"],
    reasons: {
      skipped: [],
      deny: ["invalid_desire", "name_mismatch", "duplicate", "terminating"],
      error: ["decode", "list"],
    },
  },
} as const satisfies Record<string, EndpointSpec>;

/** An endpoint's key: also its `handler` metric label. */
export type HandlerLabel = keyof typeof ENDPOINTS;

export const HANDLER_LABELS = Object.keys(ENDPOINTS) as HandlerLabel[];

/** What a verdict says about the request; `result` label of the admission metric. */
export const VERDICT_RESULTS = ["allow", "skipped", "deny", "error"] as const;
export type VerdictResult = (typeof VERDICT_RESULTS)[number];

type ReasonKind = keyof EndpointSpec["reasons"];

/** The reasons endpoint `E` can give with a verdict of kind `K`. */
export type ReasonOf<E extends HandlerLabel, K extends ReasonKind> =
  | (typeof ENDPOINTS)[E]["reasons"][K][number]
  | (typeof COMMON_REASONS)[K][number];

/** Every (result, reason) pair endpoint `label` can record, the plain allow (reason "") included. */
export function resultReasons(
  label: HandlerLabel,
): readonly { readonly result: VerdictResult; readonly reason: string }[] {
  const { reasons } = ENDPOINTS[label];
  const pairs: { result: VerdictResult; reason: string }[] = [{ result: "allow", reason: "" }];
  for (const result of ["skipped", "deny", "error"] as const) {
    for (const reason of [...COMMON_REASONS[result], ...reasons[result]]) {
      pairs.push({ result, reason });
    }
  }
  return pairs;
}

const LABEL_BY_PATH: ReadonlyMap<string, HandlerLabel> = new Map(
  HANDLER_LABELS.map((label) => [ENDPOINTS[label].path, label]),
);

/** The endpoint served at `path`, if any. */
export function endpointAt(path: string): HandlerLabel | undefined {
  return LABEL_BY_PATH.get(path);
}
