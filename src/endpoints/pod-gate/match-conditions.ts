import { NODE_USERNAME_PREFIX, SCHEDULER_USERNAME } from "../../cocoon/identities";
import {
  COCOON_TOLERATION_KEY,
  VM_ANNOTATION_PREFIX,
  VM_NAME_ANNOTATION,
} from "../../cocoon/markers";
import type { MatchConditions } from "../../contract/endpoint";
import { cel, condition, fieldOr } from "../cel";
import { DEFAULT_POD_CREATORS } from "./creators";
import { BOUND_NODES_ENTRY, DEFAULT_RUNTIME_IDENTITIES } from "./platform-identities";

/** podEntersCocoonGate's first half. */
const tolerates = (object: string) => cel`
  (has(${object}.spec) && ${object}.spec != null
  && has(${object}.spec.tolerations) && ${object}.spec.tolerations != null
  && ${object}.spec.tolerations.exists(t, t != null
  && has(t.key) && t.key == '${COCOON_TOLERATION_KEY}'))
`;

/** podEntersCocoonGate's second half. */
const annotated = (object: string) => cel`
  (has(${object}.metadata) && ${object}.metadata != null
  && has(${object}.metadata.annotations) && ${object}.metadata.annotations != null
  && '${VM_NAME_ANNOTATION}' in ${object}.metadata.annotations)
`;

const IS_BINDING = cel`
  (has(request.subResource) && request.subResource == 'binding')
  || request.resource.resource == 'bindings'
`;

/** podEntersCocoonGate(oldObject). */
const WAS_GATED = cel`
  oldObject != null
  && (${tolerates("oldObject")}
  || ${annotated("oldObject")})
`;

const annotationsOf = (object: string) => fieldOr(object, ["metadata", "annotations"], "{}");

const cocoonTolerationsOf = (object: string) =>
  `${fieldOr(object, ["spec", "tolerations"], "[]")}` +
  `.filter(t, t != null && has(t.key) && t.key == '${COCOON_TOLERATION_KEY}')`;

const changed = (path: readonly string[], empty: string) =>
  `${fieldOr("object", path, empty)}\n!= ${fieldOr("oldObject", path, empty)}`;

/** changedGateFields. */
const GATE_FIELD_CHANGED = cel`
  ${annotationsOf("object")}.exists(k, k.startsWith('${VM_ANNOTATION_PREFIX}')
  && (!(k in ${annotationsOf("oldObject")})
  || ${annotationsOf("oldObject")}[k] != ${annotationsOf("object")}[k]))
  || ${annotationsOf("oldObject")}.exists(k, k.startsWith('${VM_ANNOTATION_PREFIX}')
  && !(k in ${annotationsOf("object")}))
  || ${cocoonTolerationsOf("object")}
  != ${cocoonTolerationsOf("oldObject")}
  || ${changed(["metadata", "ownerReferences"], "[]")}
  || ${changed(["spec", "nodeName"], "''")}
  || ${changed(["spec", "nodeSelector"], "{}")}
`;

/**
 * An identity list as a CEL string literal, split where the webhook splits it. It opens the
 * expression, so that kustomize (a replacement with the delimiter "'", index 1) and the chart
 * write the configured value into it.
 */
const identityList = (text: string, entryIdentity: string) =>
  `!('${text}'.split(',').exists(e, ${entryIdentity} != ''`;

const podCreatorsCondition = (podCreators: string) => cel`
  ${identityList(podCreators, "e.split('=')[0].trim()")}
  && has(request.userInfo.username)
  && e.split('=')[0].trim() == request.userInfo.username))
  || !(${WAS_GATED})
`;

const runtimeIdentitiesCondition = (runtimeIdentities: string) => cel`
  ${identityList(runtimeIdentities, "e.trim()")}
  && has(request.userInfo.username)
  && (e.trim() == request.userInfo.username
  || e.trim() == '${BOUND_NODES_ENTRY}'
  && oldObject != null && has(oldObject.spec) && oldObject.spec != null
  && has(oldObject.spec.nodeName) && oldObject.spec.nodeName != null
  && type(oldObject.spec.nodeName) == string && oldObject.spec.nodeName != ''
  && request.userInfo.username == '${NODE_USERNAME_PREFIX}' + oldObject.spec.nodeName)))
  || !(${WAS_GATED})
`;

export function podGateConditions(podCreators: string, runtimeIdentities: string): MatchConditions {
  return {
    comment:
      "The apiserver calls the webhook only for pods that enter the cocoon gate, pods created " +
      "with spec.nodeName set, Bindings made by anyone but the scheduler (which honours taints), " +
      "and changes to the gate fields of a VM-backed pod by anyone but the platform's " +
      "identities, so a webhook outage cannot block ordinary pods, scheduling, or the " +
      "platform's runtime patches and status writes. The expressions mirror the pod gate " +
      "(src/endpoints/pod-gate/decide.ts). The identity lists are POD_CREATORS and RUNTIME_IDENTITIES " +
      "as the Deployment's ConfigMap holds them (kustomize writes them in). For older " +
      "clusters, see manifests/components/no-match-conditions.",
    conditions: [
      condition(
        "binding-not-by-scheduler",
        cel`
          !(${IS_BINDING})
          || !has(request.userInfo.username)
          || request.userInfo.username != '${SCHEDULER_USERNAME}'
        `,
      ),
      condition(
        "binding-or-gated-or-names-node",
        cel`
          ${IS_BINDING}
          || ${tolerates("object")}
          || ${annotated("object")}
          || (request.operation == 'CREATE'
          && has(object.spec) && object.spec != null
          && has(object.spec.nodeName) && object.spec.nodeName != null
          && object.spec.nodeName != '')
          || (${WAS_GATED})
        `,
        "A pod that carries a marker, or did: removing one is a change of its gate fields.",
      ),
      condition(
        "vm-pod-gate-field-changed",
        cel`
          !(${WAS_GATED})
          || ${GATE_FIELD_CHANGED}
        `,
        "On a VM-backed pod only a change of a gate field is judged: a vm.cocoonstack.io/ " +
          "annotation, the cocoon toleration, ownerReferences, spec.nodeName or spec.nodeSelector.",
      ),
      condition(
        "vm-pod-not-by-pod-creator",
        podCreatorsCondition(podCreators),
        "POD_CREATORS' creators change their VM-backed pods untouched.",
      ),
      condition(
        "vm-pod-not-by-runtime-identity",
        runtimeIdentitiesCondition(runtimeIdentities),
        "RUNTIME_IDENTITIES (vk-cocoon, vk-sandbox, a node on its own pods, the garbage " +
          "collector) change VM-backed pods untouched.",
      ),
    ],
  };
}

export const POD_GATE_CONDITIONS: MatchConditions = podGateConditions(
  DEFAULT_POD_CREATORS,
  DEFAULT_RUNTIME_IDENTITIES,
);
