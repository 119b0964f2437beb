import type { HandlerName } from "./rule";

/** Admission paths as registered in the webhook configurations, and their handler label. */
export const ADMISSION_ROUTES = {
  "/mutate": "mutate",
  "/validate": "validate",
  "/validate-cocoonset": "validate_cocoonset",
  "/validate-cocoonhibernation": "validate_cocoonhibernation",
} as const satisfies Record<string, HandlerName>;

export type AdmissionPath = keyof typeof ADMISSION_ROUTES;
