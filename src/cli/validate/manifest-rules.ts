import { RULE_CATALOGUE } from "../../endpoints";

export type Severity = "error" | "warning";

/**
 * In a cluster the apiserver handles these before the webhook, so its catalogue does not list them.
 * `manifest.crd-*` are errors even without --strict: the apiserver would refuse the object. A
 * `warning` is one without --strict; --strict makes it an error.
 */
const RULES = [
  {
    id: "manifest.unknown-field",
    text: "CocoonSet and CocoonHibernation: every field is one the operator's CRD defines; the apiserver drops or rejects any other, so a misspelt field never reaches the operator.",
    severity: "warning",
  },
  {
    id: "manifest.unknown-object",
    text: "An object of a cocoonstack.io API group, or any object of kind CocoonSet or CocoonHibernation (such as the legacy cocoon.cis/v1alpha1), is a CocoonSet or CocoonHibernation of cocoonset.cocoonstack.io/v1; an apiVersion or kind this tool does not know is reported, not skipped.",
    severity: "warning",
  },
  {
    id: "manifest.crd-port",
    text: "CocoonSet: `probePort` of the agent and of each toolbox, and a toolbox's `vncPort`, are whole numbers from 0 to 65535, as the CRD's schema requires.",
    severity: "error",
  },
  {
    id: "manifest.crd-quantity",
    text: "CocoonSet: `storage` and every value of `resources.limits` and `resources.requests` is a Kubernetes quantity (`20Gi`, `500m`), as the CRD's schema requires.",
    severity: "error",
  },
  {
    id: "manifest.crd-snapshot-class",
    text: "CocoonSet: `spec.snapshotCompatibilityClass` is at most 63 letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit, as the CRD's schema requires.",
    severity: "error",
  },
  {
    id: "manifest.crd-hibernate-release",
    text: "CocoonSet: `hibernatePolicy: release` needs `agent.replicas` 0 and no toolboxes, the CRD's own validation rule.",
    severity: "error",
  },
  {
    id: "decode",
    text: "A CocoonSet or CocoonHibernation is a mapping with apiVersion, kind, metadata and spec.",
    severity: "error",
  },
] as const satisfies readonly { id: string; text: string; severity: Severity }[];

export type ManifestRuleId = (typeof RULES)[number]["id"];

/** A warning's text says so, as README.md and the SARIF rules show it. */
export const MANIFEST_RULES = RULES.map((rule) => ({
  ...rule,
  text: rule.severity === "warning" ? `${rule.text} A warning, an error with --strict.` : rule.text,
}));

export function severityOf(
  rule: ManifestRuleId,
  { strict }: { readonly strict: boolean },
): Severity {
  if (strict) return "error";
  return RULES.some((each) => each.id === rule && each.severity === "warning")
    ? "warning"
    : "error";
}

/** Every rule validate reports, with its severity without --strict. */
export const ALL_RULES: readonly {
  readonly id: string;
  readonly text: string;
  readonly severity: Severity;
}[] = [
  ...RULE_CATALOGUE.map((rule) => ({ ...rule, severity: "error" as const })),
  ...MANIFEST_RULES,
];
