/**
 * Time as the watchers and caches read it. Injected, so their tests step
 * time forward instead of sleeping through it.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `tick` every `intervalMs` without keeping the process alive; the result stops it. */
  every(intervalMs: number, tick: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(intervalMs, tick) {
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  },
};
