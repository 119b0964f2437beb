import type { AdmissionRequest } from "./review";
import type { ADMISSION_ROUTES } from "./routes";
import type { Verdict } from "./verdict";

/** The four admission handlers; also the `handler` metric label. */
export type HandlerName = (typeof ADMISSION_ROUTES)[keyof typeof ADMISSION_ROUTES];

/**
 * A rule turns one admission request into a verdict. Rules are pure apart
 * from the injected apiserver port: no HTTP, metrics or logging inside.
 */
export type Rule = (request: AdmissionRequest) => Verdict | Promise<Verdict>;
