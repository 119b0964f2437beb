/** Time as the watchers read it, injected so their tests step it instead of sleeping. */
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

/** Calls `run` once after `ms` without keeping the process alive; the result cancels it. */
export function unrefTimeout(ms: number, run: () => void): () => void {
  const timer = setTimeout(run, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
