import type { AdmissionRequest } from "../../src/admission/review";

/**
 * An admission request shaped like the apiserver's, with every field a test
 * does not care about filled with something plausible.
 */
export function admissionRequest(overrides: Partial<AdmissionRequest> = {}): AdmissionRequest {
  return {
    uid: crypto.randomUUID(),
    operation: "CREATE",
    namespace: "default",
    userInfo: { username: "system:serviceaccount:cocoon-system:cocoon-operator" },
    ...overrides,
  };
}
