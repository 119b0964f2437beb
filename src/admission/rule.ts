import type { AdmissionRequest } from "./review";
import type { Verdict } from "./verdict";

/** The four admission handlers; also the `handler` metric label. */
export const HANDLERS = [
  "mutate",
  "validate",
  "validate_cocoonset",
  "validate_cocoonhibernation",
] as const;
export type HandlerName = (typeof HANDLERS)[number];

/**
 * A rule turns one admission request into a verdict. Rules are pure apart
 * from the injected apiserver port: no HTTP, metrics or logging inside.
 */
export type Rule = (request: AdmissionRequest) => Verdict | Promise<Verdict>;
