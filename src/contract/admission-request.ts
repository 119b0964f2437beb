import { z } from "zod";

export const ADMISSION_API_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;
export type AdmissionApiVersion = (typeof ADMISSION_API_VERSIONS)[number];

// Only the fields a decision or log line reads: a malformed field no one reads must not turn into
// a 400, which failurePolicy Fail makes a rejected request.
export const admissionRequestSchema = z.object({
  uid: z.string().min(1, "request.uid must not be empty"),
  kind: z.object({ kind: z.string() }).optional(),
  resource: z.object({ resource: z.string() }).optional(),
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.string().optional(),
  userInfo: z.object({ username: z.string().optional() }).optional(),
  object: z.unknown().optional(),
  oldObject: z.unknown().optional(),
});

export const admissionReviewSchema = z.object({
  apiVersion: z.enum(ADMISSION_API_VERSIONS, {
    error: `apiVersion must be one of ${ADMISSION_API_VERSIONS.join(", ")}`,
  }),
  kind: z.literal("AdmissionReview", { error: "kind must be AdmissionReview" }),
  request: admissionRequestSchema,
});

export type AdmissionRequest = z.infer<typeof admissionRequestSchema>;
