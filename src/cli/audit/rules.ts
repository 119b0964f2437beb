import { RULE_CATALOGUE } from "../../endpoints";

/**
 * The pod gate and the scale guard judge requests, not objects, so the webhook's catalogue has no
 * entry for what they would refuse; these say it of objects already in the cluster.
 */
export const AUDIT_RULES = [
  {
    id: "pod.not-owned",
    text: "Pod: a pod that enters the cocoon gate (the toleration `virtual-kubelet.io/provider` or the annotation `vm.cocoonstack.io/name`) has an owner reference of a kind POD_CREATORS pairs with a creator; the pod gate refuses any other (not_owned).",
  },
  {
    id: "pod.forged-owner",
    text: "Pod: each owner reference of a pod that enters the cocoon gate, of a kind POD_CREATORS pairs with a creator (CocoonSet, Sandbox), names a stored object of that kind, name and uid; any other was written by someone other than its operator, or outlived its owner.",
  },
  {
    id: "pod.unmarked-on-vm-node",
    text: "Pod: a pod without a cocoon marker does not run on a VM node (a node tainted `virtual-kubelet.io/provider`); the pod gate refuses placing one there by name or by a Binding, unless its operator does it. A warning when an owner of a paired kind or a keyless toleration may explain it.",
  },
  {
    id: "workload.cocoon-scale-guarded",
    text: "Deployment or StatefulSet: a workload whose pod template tolerates `virtual-kubelet.io/provider` cannot be scaled down (scale_down), and the pod gate refuses its pods, which no CocoonSet owns (not_owned). A notice: manage VMs through a CocoonSet.",
  },
] as const;

export type AuditRuleId = (typeof AUDIT_RULES)[number]["id"];

export const AUDITED_RULES: readonly { readonly id: string; readonly text: string }[] = [
  ...RULE_CATALOGUE,
  ...AUDIT_RULES,
];
