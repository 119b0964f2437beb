import { RULE_CATALOGUE } from "../../endpoints";

/**
 * In a cluster the apiserver handles these before the webhook, so its catalogue does not list them.
 * `manifest.crd-*` are errors even without --strict: the apiserver would refuse the object.
 */
export const MANIFEST_RULES = [
  {
    id: "manifest.unknown-field",
    text: "CocoonSet and CocoonHibernation: every field is one the operator's CRD defines; the apiserver drops or rejects any other, so a misspelt field never reaches the operator. A warning, an error with --strict.",
  },
  {
    id: "manifest.unknown-object",
    text: "An object of a cocoonstack.io API group, or any object of kind CocoonSet or CocoonHibernation (such as the legacy cocoon.cis/v1alpha1), is a CocoonSet or CocoonHibernation of cocoonset.cocoonstack.io/v1; an apiVersion or kind this tool does not know is reported, not skipped. A warning, an error with --strict.",
  },
  {
    id: "manifest.crd-port",
    text: "CocoonSet: `probePort` of the agent and of each toolbox, and a toolbox's `vncPort`, are whole numbers from 0 to 65535, as the CRD's schema requires.",
  },
  {
    id: "manifest.crd-quantity",
    text: "CocoonSet: `storage` and every value of `resources.limits` and `resources.requests` is a Kubernetes quantity (`20Gi`, `500m`), as the CRD's schema requires.",
  },
  {
    id: "manifest.crd-snapshot-class",
    text: "CocoonSet: `spec.snapshotCompatibilityClass` is at most 63 letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit, as the CRD's schema requires.",
  },
  {
    id: "manifest.crd-hibernate-release",
    text: "CocoonSet: `hibernatePolicy: release` needs `agent.replicas` 0 and no toolboxes, the CRD's own validation rule.",
  },
  {
    id: "decode",
    text: "A CocoonSet or CocoonHibernation is a mapping with apiVersion, kind, metadata and spec.",
  },
] as const;

export type ManifestRuleId = (typeof MANIFEST_RULES)[number]["id"];

export const ALL_RULES: readonly { readonly id: string; readonly text: string }[] = [
  ...RULE_CATALOGUE,
  ...MANIFEST_RULES,
];
