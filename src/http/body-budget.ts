/** A body at least this large is a large review: a pod review is a few KiB, the largest about 3 MiB. */
export const LARGE_REVIEW_BYTES = 256 * 1024;

/**
 * Bytes of large reviews read and decoded at once: one review of the largest size the apiserver
 * sends fits, and a second waits for it, since decoding costs many times the body.
 */
export const LARGE_REVIEW_BUDGET_BYTES = 3 * 1024 * 1024;

/**
 * Past this resident size the gate collects after large reviews: it leaves room for one more
 * decoded review of the largest size under the manifests' 256 MiB.
 */
export const COLLECT_ABOVE_RSS_BYTES = 160 * 1024 * 1024;

/**
 * Past COLLECT_ABOVE_RSS_BYTES, the heap's blocks above which a decoded review of small objects is
 * still there: reviews of long strings, which the collector's own schedule handles, leave them small.
 */
export const COLLECT_ABOVE_HEAP_BYTES = 32 * 1024 * 1024;

/** Three quarters of the manifests' 256 MiB: past it, the gate collects whatever the heap holds. */
export const COLLECT_ANYWAY_ABOVE_RSS_BYTES = 192 * 1024 * 1024;

/** Small bodies read and decoded at once without a turn; past it a small body waits like a large one. */
export const SMALL_BODIES_BUDGET_BYTES = 4 * 1024 * 1024;

export interface LargeReviewGateOptions {
  readonly largeBytes?: number;
  readonly budgetBytes?: number;
  readonly smallBudgetBytes?: number;
  readonly residentBytes?: () => number;
  readonly heapBytes?: () => number;
  readonly collect?: () => void;
}

/** A review's hold on the budget while its body is read and decoded. */
export interface ReviewTurn {
  /**
   * Holds at least `bodyBytes` from now on (a chunked body). Undefined when
   * the budget had room; else resolves once it has, ahead of reviews still
   * waiting for a turn.
   */
  grow(bodyBytes: number): Promise<void> | undefined;
  /** Gives up a growth still waiting, when the read is abandoned. */
  abandon(): void;
}

export interface LargeReviewGate {
  /**
   * Runs `decide` at once for a small body; for a large or chunked one once
   * the budget has room, in arrival order (a body larger than the budget
   * runs alone).
   */
  run<T>(bodyBytes: number | undefined, decide: (turn: ReviewTurn) => Promise<T>): Promise<T>;
  readonly decoding: number;
  readonly waiting: number;
  /** Large reviews' and small bodies' bytes together. */
  readonly heldBytes: number;
}

interface Waiter {
  readonly bytes: number;
  /** Bytes its review already holds (a growth); 0 for a review waiting for its turn. */
  readonly holding: number;
  readonly chunked: boolean;
  readonly start: () => void;
  cancelled: boolean;
}

/** A small review, or one that never grows: nothing to give up. */
const FIXED_TURN: ReviewTurn = { grow: () => undefined, abandon: () => {} };

/**
 * Bounds the memory request bodies take, whatever their number, and keeps
 * large reviews from starving small ones. Every body holds its bytes from
 * before it is read until its review is answered: its Content-Length, or for
 * a chunked body what has arrived (Bun reads a body only as fast as it is
 * asked to, so a review waiting for its turn holds no memory). A large
 * review hands over to the next on a later turn of the event loop, so the
 * small reviews that arrived meanwhile are answered in between; after the
 * last one, past the COLLECT_* thresholds, the heap is collected so the next
 * is not decoded on top of its garbage (docs/performance.md, large reviews).
 */
export function createLargeReviewGate(options: LargeReviewGateOptions = {}): LargeReviewGate {
  const {
    largeBytes = LARGE_REVIEW_BYTES,
    budgetBytes = LARGE_REVIEW_BUDGET_BYTES,
    smallBudgetBytes = SMALL_BODIES_BUDGET_BYTES,
    residentBytes = () => process.memoryUsage.rss(),
    heapBytes = () => process.memoryUsage().heapTotal,
    collect = () => Bun.gc(true),
  } = options;
  const queue: Waiter[] = [];
  let bytesInUse = 0;
  let smallBytesInUse = 0;
  let decoding = 0;
  let readingChunked = false;
  let handingOver = false;

  // In arrival order, but a chunked body waits for the one being read without
  // holding up the reviews behind it: chunked bodies that grow side by side
  // would wait for each other's room until their deadlines.
  const admitWaiting = () => {
    if (handingOver) return;
    for (let index = 0; index < queue.length; ) {
      const next = queue[index] as Waiter;
      if (next.cancelled) {
        queue.splice(index, 1);
        continue;
      }
      if (next.chunked && readingChunked) {
        index++;
        continue;
      }
      const alone = bytesInUse === next.holding;
      if (!alone && bytesInUse + next.bytes > budgetBytes) return;
      queue.splice(index, 1);
      bytesInUse += next.bytes;
      next.start();
    }
  };
  const collectIfGrown = () => {
    const resident = residentBytes();
    const needed =
      resident > COLLECT_ANYWAY_ABOVE_RSS_BYTES ||
      (resident > COLLECT_ABOVE_RSS_BYTES && heapBytes() > COLLECT_ABOVE_HEAP_BYTES);
    if (needed) collect();
  };
  const release = (bytes: number) => {
    bytesInUse -= bytes;
    decoding--;
    if (handingOver) return;
    handingOver = true;
    setImmediate(() => {
      handingOver = false;
      if (decoding === 0) collectIfGrown();
      admitWaiting();
    });
  };

  /** A turn holding `initial` bytes that a chunked body grows in steps of largeBytes. */
  const growingTurn = (initial: number) => {
    let held = initial;
    let growth: Waiter | undefined;
    const turn: ReviewTurn & { readonly held: number } = {
      get held() {
        return held;
      },
      grow(bodyBytes) {
        if (bodyBytes <= held) return undefined;
        const wanted = Math.ceil(bodyBytes / largeBytes) * largeBytes;
        const extra = wanted - held;
        const alone = bytesInUse === held;
        if (alone || bytesInUse + extra <= budgetBytes) {
          bytesInUse += extra;
          held = wanted;
          return undefined;
        }
        return new Promise<void>((resolve) => {
          growth = {
            bytes: extra,
            holding: held,
            chunked: false,
            cancelled: false,
            start: () => {
              growth = undefined;
              held += extra;
              resolve();
            },
          };
          // Ahead of reviews waiting for a turn: they wait for room this one would give back.
          queue.unshift(growth);
        });
      },
      abandon() {
        if (growth) growth.cancelled = true;
        growth = undefined;
      },
    };
    return turn;
  };

  return {
    run(bodyBytes, decide) {
      if (
        bodyBytes !== undefined &&
        bodyBytes < largeBytes &&
        smallBytesInUse + bodyBytes <= smallBudgetBytes
      ) {
        smallBytesInUse += bodyBytes;
        return decide(FIXED_TURN).finally(() => {
          smallBytesInUse -= bodyBytes;
        });
      }
      const chunked = bodyBytes === undefined;
      const turn = growingTurn(bodyBytes ?? largeBytes);
      return new Promise((resolve, reject) => {
        queue.push({
          bytes: turn.held,
          holding: 0,
          chunked,
          cancelled: false,
          start: () => {
            decoding++;
            if (chunked) readingChunked = true;
            decide(turn)
              .then(resolve, reject)
              .finally(() => {
                turn.abandon();
                if (chunked) readingChunked = false;
                release(turn.held);
              });
          },
        });
        admitWaiting();
      });
    },
    get decoding() {
      return decoding;
    },
    get waiting() {
      return queue.filter((waiter) => !waiter.cancelled && waiter.holding === 0).length;
    },
    get heldBytes() {
      return bytesInUse + smallBytesInUse;
    },
  };
}
