/** Admission paths as registered in the webhook configurations, and their handler label. */
export const ADMISSION_ROUTES = {
  "/mutate": "mutate",
  "/validate": "validate",
  "/validate-cocoonset": "validate_cocoonset",
  "/validate-cocoonhibernation": "validate_cocoonhibernation",
} as const;
