import { z } from "zod";

export const ADMISSION_API_VERSIONS = ["admission.k8s.io/v1", "admission.k8s.io/v1beta1"] as const;
export type AdmissionApiVersion = (typeof ADMISSION_API_VERSIONS)[number];

export const OPERATIONS = ["CREATE", "UPDATE", "DELETE", "CONNECT"] as const;

const groupVersionKind = z.object({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string(),
});

const groupVersionResource = z.object({
  group: z.string().optional(),
  version: z.string().optional(),
  resource: z.string(),
});

/**
 * The fields of `request` any rule reads. `object` and `oldObject` stay
 * undecoded: each rule reads only the few fields it needs from them.
 */
export const admissionRequestSchema = z.object({
  uid: z.string().min(1, "request.uid must not be empty"),
  kind: groupVersionKind.optional(),
  resource: groupVersionResource.optional(),
  subResource: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  operation: z.string().optional(),
  userInfo: z.object({ username: z.string().optional() }).optional(),
  object: z.unknown().optional(),
  oldObject: z.unknown().optional(),
  dryRun: z.boolean().optional(),
});

export const admissionReviewSchema = z.object({
  apiVersion: z.enum(ADMISSION_API_VERSIONS, {
    error: `apiVersion must be one of ${ADMISSION_API_VERSIONS.join(", ")}`,
  }),
  kind: z.literal("AdmissionReview", { error: "kind must be AdmissionReview" }),
  request: admissionRequestSchema,
});

export type AdmissionRequest = z.infer<typeof admissionRequestSchema>;
export type AdmissionReview = z.infer<typeof admissionReviewSchema>;
