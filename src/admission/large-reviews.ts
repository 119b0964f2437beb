/**
 * A body at least this large is a large review. A pod review is a few KiB;
 * the apiserver sends up to two objects of about 1.5 MiB each.
 */
export const LARGE_REVIEW_BYTES = 256 * 1024;

/**
 * Bytes of large reviews decoded at once. Decoding costs up to about 25
 * times the body (a review of a million tiny toolboxes), so one review of
 * the largest size the apiserver sends fits, and a second waits for it.
 */
export const LARGE_REVIEW_BUDGET_BYTES = 4 * 1024 * 1024;

/**
 * The resident size past which the gate collects after large reviews: half
 * the 256 MiB the manifests give the process, and below what one more
 * decoded review of the largest size the apiserver sends (about 70 MiB of
 * heap) needs to stay inside them.
 */
export const COLLECT_ABOVE_RSS_BYTES = 160 * 1024 * 1024;

export interface LargeReviewGateOptions {
  /** LARGE_REVIEW_BYTES unless given. */
  readonly largeBytes?: number;
  /** LARGE_REVIEW_BUDGET_BYTES unless given. */
  readonly budgetBytes?: number;
  /** The process's resident size now; `process.memoryUsage.rss()` unless given. */
  readonly residentBytes?: () => number;
  /** A full collection of the heap; `Bun.gc(true)` unless given. */
  readonly collect?: () => void;
}

export interface LargeReviewGate {
  /**
   * Runs `decide` at once for a small body; for a large one (or one of
   * unknown length) once the large reviews being decoded leave room in the
   * budget, in arrival order. A body larger than the budget runs alone.
   */
  run<T>(bodyBytes: number | undefined, decide: () => Promise<T>): Promise<T>;
  /** Large reviews being decoded right now, and waiting. */
  readonly decoding: number;
  readonly waiting: number;
}

interface Waiter {
  readonly bytes: number;
  readonly start: () => void;
}

/**
 * Bounds the memory large reviews take, whatever their number, and keeps
 * them from starving small ones. Small reviews never wait here. Decoding a
 * large review holds the event loop for a few hundred milliseconds, and Bun
 * calls every request whose bytes have arrived before it polls for more; so
 * a large review that finishes hands over to the next only on a later turn
 * of the event loop (a macrotask), and one that arrives meanwhile waits for
 * that turn too: the small reviews that arrived during the decoding are
 * answered in between, and none waits behind more than one large review.
 *
 * When the last large review in decoding is done and the process has grown
 * past COLLECT_ABOVE_RSS_BYTES, the heap is collected at once: the
 * collector would otherwise leave a decoded review (tens of MiB of small
 * objects) for later, and the next one would be decoded on top of it (four
 * of the largest at once reached 330–360 MiB without this, 140–160 MiB with
 * it). Below that size a collection costs more than it saves: collecting
 * after every ≈1 MB pod review doubled its CPU (3.3 → 6.6 ms per review).
 */
export function createLargeReviewGate(options: LargeReviewGateOptions = {}): LargeReviewGate {
  const {
    largeBytes = LARGE_REVIEW_BYTES,
    budgetBytes = LARGE_REVIEW_BUDGET_BYTES,
    residentBytes = () => process.memoryUsage.rss(),
    collect = () => Bun.gc(true),
  } = options;
  const queue: Waiter[] = [];
  let bytesInUse = 0;
  let decoding = 0;
  let handingOver = false;

  const admitWaiting = () => {
    if (handingOver) return;
    for (let next = queue[0]; next; next = queue[0]) {
      if (decoding > 0 && bytesInUse + next.bytes > budgetBytes) return;
      queue.shift();
      bytesInUse += next.bytes;
      decoding++;
      next.start();
    }
  };
  const release = (bytes: number) => {
    bytesInUse -= bytes;
    decoding--;
    if (handingOver) return;
    handingOver = true;
    setImmediate(() => {
      handingOver = false;
      if (decoding === 0 && residentBytes() > COLLECT_ABOVE_RSS_BYTES) collect();
      admitWaiting();
    });
  };

  return {
    run(bodyBytes, decide) {
      if (bodyBytes !== undefined && bodyBytes < largeBytes) return decide();
      // A body of unknown length may be as large as MAX_REQUEST_BYTES.
      const bytes = bodyBytes ?? budgetBytes;
      return new Promise((resolve, reject) => {
        queue.push({
          bytes,
          start: () => {
            decide()
              .then(resolve, reject)
              .finally(() => release(bytes));
          },
        });
        admitWaiting();
      });
    },
    get decoding() {
      return decoding;
    },
    get waiting() {
      return queue.length;
    },
  };
}
