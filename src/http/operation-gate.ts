import { type EndpointKey, operationsOf } from "../endpoints/index";
import { type Handler, type Skipped, skipped } from "../contract/verdict";

const SKIPPED_OPERATION: Skipped<"operation"> = Object.freeze(skipped("operation"));

/**
 * The operation gate, the one place that decides which operations an
 * endpoint examines (the operations it is registered for); any other passes as
 * skipped/operation without reaching the handler.
 */
export function gateOperations<E extends EndpointKey>(
  endpoint: E,
  handler: Handler<E>,
): Handler<E> {
  const examined: ReadonlySet<string | undefined> = new Set(operationsOf(endpoint));
  return async (request) =>
    examined.has(request.operation) ? handler(request) : SKIPPED_OPERATION;
}
