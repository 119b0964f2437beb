import { KubeApiError } from "../contract/reads";

/**
 * Past this a review that needs a read fails closed instead of queueing: each
 * waiting review holds its body, and eight hold at most half the room small
 * reviews share, so a review that needs no read never queues behind them.
 */
export const MAX_READS_IN_FLIGHT = 8;

/** Memory the answers of the reads in flight may hold together, as text and decoded: a largest LIST fits. */
export const ANSWERS_BUDGET_BYTES = 80 * 1024 * 1024;

/** What decoding an answer costs: its text twice (text and strings) and a hundred-odd bytes per container. */
export function decodedCost(bytes: number, containers: number): number {
  return 2 * bytes + containers * DECODED_CONTAINER_BYTES;
}

const DECODED_CONTAINER_BYTES = 128;

export interface ReadHold {
  /** Counts `bytes` more against the budget; a KubeApiError naming the read when past it. */
  charge(bytes: number): void;
  end(): void;
}

/** A read whose answers held this much is followed by a full collection, before the next is decoded on top. */
export const COLLECT_AFTER_BYTES = 16 * 1024 * 1024;

export interface ReadBudgetOptions {
  readonly maxReads?: number;
  readonly budgetBytes?: number;
  readonly collect?: () => void;
}

/**
 * A read past either bound is refused, never queued: the review fails closed
 * naming it, and the client's retry (a controller's requeue) finds room.
 */
export function createReadBudget({
  maxReads = MAX_READS_IN_FLIGHT,
  budgetBytes = ANSWERS_BUDGET_BYTES,
  collect = () => Bun.gc(true),
}: ReadBudgetOptions = {}) {
  let reads = 0;
  let held = 0;
  let collecting = false;
  // On a later turn, once the review that read has its verdict.
  const collectSoon = () => {
    if (collecting) return;
    collecting = true;
    setImmediate(() => {
      collecting = false;
      collect();
    });
  };
  return {
    begin(operation: string): ReadHold {
      if (reads >= maxReads) {
        throw new KubeApiError(
          `${operation}: ${maxReads} apiserver reads are already waiting for answers, the most ` +
            "the webhook waits on at once; refused at once rather than queued (the apiserver is " +
            "slow or unreachable, or reviews that need a read arrive faster than it answers)",
        );
      }
      reads++;
      let mine = 0;
      let ended = false;
      return {
        charge(bytes) {
          if (ended) return;
          if (held + bytes > budgetBytes) {
            throw new KubeApiError(
              `${operation}: its answer would take the apiserver answers held at once past ` +
                `${budgetBytes} bytes (their text and decoded values); refused before decoding it`,
            );
          }
          held += bytes;
          mine += bytes;
        },
        end() {
          if (ended) return;
          ended = true;
          reads--;
          held -= mine;
          if (mine >= COLLECT_AFTER_BYTES) collectSoon();
        },
      };
    },
  };
}
