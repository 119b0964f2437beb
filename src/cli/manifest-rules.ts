import { RULE_CATALOGUE } from "../rules/catalogue";

/**
 * What only the offline check reports: the apiserver and the operator's CRD
 * handle these in a cluster, so the webhook's rule catalogue does not list them.
 */
export const MANIFEST_RULES = [
  {
    id: "manifest.unknown-field",
    text: "CocoonSet and CocoonHibernation: every field is one the operator's CRD defines; the apiserver drops or rejects any other, so a misspelt field never reaches the operator. A warning, an error with --strict.",
  },
  {
    id: "manifest.unknown-object",
    text: "An object of a cocoonstack.io API group is a CocoonSet or CocoonHibernation of cocoonset.cocoonstack.io/v1; an apiVersion or kind this tool does not know is reported, not skipped. A warning, an error with --strict.",
  },
  {
    id: "decode",
    text: "A CocoonSet or CocoonHibernation is a mapping with apiVersion, kind, metadata and spec.",
  },
] as const;

export type ManifestRuleId = (typeof MANIFEST_RULES)[number]["id"];

/** Every rule a finding can name: the webhook's catalogue, then the offline-only ones. */
export const ALL_RULES: readonly { readonly id: string; readonly text: string }[] = [
  ...RULE_CATALOGUE,
  ...MANIFEST_RULES,
];
