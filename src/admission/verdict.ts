/** The outcome of a rule, independent of HTTP and of the AdmissionReview version. */
export type AdmissionResult = "allow" | "deny" | "error" | "skipped";

export interface Verdict {
  readonly allowed: boolean;
  readonly result: AdmissionResult;
  /** Metric/log reason label; empty for a plain allow. */
  readonly reason: string;
  /** Human-readable explanation for a denial (without the `cocoon-webhook: ` prefix). */
  readonly message?: string;
}

const ALLOWED: Verdict = Object.freeze({ allowed: true, result: "allow", reason: "" });

/** The rule checked the object and found nothing wrong. */
export const allowed = (): Verdict => ALLOWED;

/** The rule does not apply to this request; it passes unexamined. */
export const skipped = (reason: string): Verdict => ({ allowed: true, result: "skipped", reason });

/** The request breaks a rule. */
export const denied = (reason: string, message: string): Verdict => ({
  allowed: false,
  result: "deny",
  reason,
  message,
});

/** The rule could not reach a decision and fails closed. */
export const errored = (reason: string, message: string): Verdict => ({
  allowed: false,
  result: "error",
  reason,
  message,
});
