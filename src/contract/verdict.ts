import { type CollectedViolations, NO_VIOLATIONS } from "./violations";

export interface Reasons {
  readonly skipped: readonly string[];
  readonly deny: readonly string[];
  readonly error: readonly string[];
}

/** Reasons every endpoint can answer with: the operation gate's, and the chain's for a decision that threw. */
export const COMMON_REASONS = {
  skipped: ["operation"],
  deny: [],
  error: ["internal"],
} as const satisfies Reasons;

export type ReasonIn<R extends Reasons, K extends keyof Reasons> =
  | R[K][number]
  | (typeof COMMON_REASONS)[K][number];

export type RefusalReason<R extends Reasons> = R["deny"][number] | R["error"][number];

// Each variant fixes `allowed` to its result, so a verdict cannot say "allowed" and "deny" at once.
export interface Allowed {
  readonly allowed: true;
  readonly result: "allow";
  readonly reason: "";
}

export interface Skipped<R extends string = string> {
  readonly allowed: true;
  readonly result: "skipped";
  readonly reason: R;
}

export interface Denied<R extends string = string, Rule extends string = string> {
  readonly allowed: false;
  readonly result: "deny";
  readonly reason: R;
  /** What is wrong and what to do instead, without the `cocoon-webhook: ` prefix. */
  readonly message: string;
  readonly violations: CollectedViolations<Rule>;
}

/** The decision could not be reached, and fails closed. */
export interface Errored<R extends string = string> {
  readonly allowed: false;
  readonly result: "error";
  readonly reason: R;
  readonly message: string;
}

/** A verdict carries only reasons its module lists, and a denial only violations of its rules. */
export type Verdict<R extends Reasons = Reasons, Rule extends string = string> =
  | Allowed
  | Skipped<ReasonIn<R, "skipped">>
  | Denied<ReasonIn<R, "deny">, Rule>
  | Errored<ReasonIn<R, "error">>;

/** A refusal that an endpoint in warn mode let through: never a decision's own verdict. */
export interface Warned<R extends Reasons = Reasons, Rule extends string = string> {
  readonly allowed: true;
  readonly result: "warn";
  readonly reason: ReasonIn<R, "deny"> | ReasonIn<R, "error">;
  readonly message: string;
  /** Its reason's remedy, which a warning leads with; a violation's leads with its rule's. */
  readonly remedy: string;
  readonly ruleRemedies: Readonly<Record<string, string>>;
  readonly violations: CollectedViolations<Rule>;
  /** What the endpoint answers under `deny`. */
  readonly refused: "deny" | "error";
}

export type Decision<R extends Reasons = Reasons, Rule extends string = string> =
  | Verdict<R, Rule>
  | Warned<R, Rule>;

const ALLOWED: Allowed = Object.freeze({ allowed: true, result: "allow", reason: "" });

export const allowed = (): Allowed => ALLOWED;

export const skipped = <R extends string>(reason: R): Skipped<R> => ({
  allowed: true,
  result: "skipped",
  reason,
});

export const denied = <R extends string, Rule extends string = never>(
  reason: R,
  message: string,
  violations: CollectedViolations<Rule> = NO_VIOLATIONS,
): Denied<R, Rule> => ({ allowed: false, result: "deny", reason, message, violations });

export const errored = <R extends string>(reason: R, message: string): Errored<R> => ({
  allowed: false,
  result: "error",
  reason,
  message,
});
