import type { AdmissionRequest } from "../admission/review";
import { allowed, denied, skipped, type Verdict } from "../admission/verdict";
import { COCOON_TOLERATION_KEY, COCOONSET_KIND, VM_NAME_ANNOTATION } from "../cocoon/keys";
import { podEntersCocoonGate, podOwnedByCocoonSet, readPodMarkers } from "../cocoon/pod";

export interface PodGateDeps {
  /** Usernames allowed to create gated pods (POD_CREATORS). */
  readonly podCreators: ReadonlySet<string>;
}

const GATED_OPERATIONS: ReadonlySet<string | undefined> = new Set(["CREATE", "UPDATE"]);

const MARKERS = `toleration "${COCOON_TOLERATION_KEY}" or annotation "${VM_NAME_ANNOTATION}"`;

/**
 * `/mutate` (SPEC §4): only the cocoon operator may create VM-backed pods, or
 * turn an existing pod into one. Never patches.
 */
export function podGate(request: AdmissionRequest, deps: PodGateDeps): Verdict {
  if (request.kind?.kind !== "Pod") return skipped("kind");
  if (!GATED_OPERATIONS.has(request.operation)) return skipped("operation");

  const markers = readPodMarkers(request.object);
  if (markers === "undecodable") return skipped("decode");
  if (markers === "not_gated") return skipped("not_cocoon");
  // Runtime patches by the operator and vk-cocoon on already-gated pods pass untouched.
  if (request.operation === "UPDATE" && podEntersCocoonGate(request.oldObject)) {
    return skipped("no_change");
  }

  if (!podOwnedByCocoonSet(request.object)) return denied("not_owned", notOwnedMessage(request));
  const username = request.userInfo?.username ?? "";
  if (!deps.podCreators.has(username)) {
    return denied("creator", creatorMessage(request, username, deps.podCreators));
  }
  return allowed();
}

function describePod(request: AdmissionRequest): string {
  const namespace = request.namespace ?? "";
  return request.name ? `pod ${namespace}/${request.name}` : `a pod in namespace "${namespace}"`;
}

function notOwnedMessage(request: AdmissionRequest): string {
  return (
    `${describePod(request)} carries a cocoon marker (${MARKERS}) but metadata.ownerReferences ` +
    `has no ${COCOONSET_KIND} owner: VM-backed pods must be managed by a ${COCOONSET_KIND}; ` +
    `create or scale a ${COCOONSET_KIND} instead, or remove the marker`
  );
}

function creatorMessage(
  request: AdmissionRequest,
  username: string,
  podCreators: ReadonlySet<string>,
): string {
  const action = request.operation === "CREATE" ? "create" : "add a cocoon marker to";
  const creators = podCreators.size > 0 ? [...podCreators].join(", ") : "(none configured)";
  return (
    `user "${username}" may not ${action} ${describePod(request)}, which carries a cocoon ` +
    `marker (${MARKERS}): only the identities in POD_CREATORS (${creators}) may create ` +
    `VM-backed pods; a ${COCOONSET_KIND} owner reference is set by the client and is not ` +
    `proof the operator made the pod — let the cocoon operator create it from a ${COCOONSET_KIND}`
  );
}
