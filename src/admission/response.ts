import type { AdmissionApiVersion } from "./review";
import type { Verdict } from "./verdict";

/** Every denial message starts with this, so operators can grep for it. */
export const MESSAGE_PREFIX = "cocoon-webhook: ";

export interface AdmissionResponseReview {
  apiVersion: AdmissionApiVersion;
  kind: "AdmissionReview";
  response: {
    uid: string;
    allowed: boolean;
    status?: { code: 403; reason: "Forbidden"; message: string };
  };
}

/** The AdmissionReview answer, in the apiVersion the apiserver sent. Never carries a patch. */
export function encodeResponse(
  apiVersion: AdmissionApiVersion,
  uid: string,
  verdict: Verdict,
): AdmissionResponseReview {
  const response: AdmissionResponseReview["response"] = { uid, allowed: verdict.allowed };
  if (!verdict.allowed) {
    response.status = {
      code: 403,
      reason: "Forbidden",
      message: `${MESSAGE_PREFIX}${verdict.message}`,
    };
  }
  return { apiVersion, kind: "AdmissionReview", response };
}
