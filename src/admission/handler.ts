import { ENDPOINTS, type EndpointLabel } from "./endpoints";
import type { AdmissionRequest } from "./review";
import { type Skipped, skipped, type Verdict } from "./verdict";

/**
 * The function behind one endpoint: one admission request in, one verdict
 * out. Handlers are pure apart from the injected apiserver port: no HTTP,
 * metrics or logging inside. A synchronous verdict is answered without a
 * detour through a promise.
 */
export type Handler<E extends EndpointLabel = EndpointLabel> = (
  request: AdmissionRequest,
) => Verdict<E> | Promise<Verdict<E>>;

/** One handler per endpoint of the table. */
export type Handlers = { readonly [E in EndpointLabel]: Handler<E> };

const SKIPPED_OPERATION: Skipped<"operation"> = Object.freeze(skipped("operation"));

/**
 * The operation gate, the one place that decides which operations an
 * endpoint examines (the table's `operations`); any other passes as
 * skipped/operation without reaching the handler.
 */
export function gateOperations<E extends EndpointLabel>(
  endpoint: E,
  handler: Handler<E>,
): Handler<E> {
  const examined: ReadonlySet<string | undefined> = new Set(ENDPOINTS[endpoint].operations);
  return (request) => (examined.has(request.operation) ? handler(request) : SKIPPED_OPERATION);
}
