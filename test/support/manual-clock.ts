import type { Clock } from "../../src/clock";

interface Repeating {
  readonly intervalMs: number;
  readonly tick: () => void;
  dueAt: number;
}

/** A Clock that moves only when the test says so, running every tick that falls due on the way. */
export class ManualClock implements Clock {
  #now: number;
  readonly #repeating = new Set<Repeating>();

  constructor(startsAt = Date.now()) {
    this.#now = startsAt;
  }

  now(): number {
    return this.#now;
  }

  every(intervalMs: number, tick: () => void): () => void {
    const repeating: Repeating = { intervalMs, tick, dueAt: this.#now + intervalMs };
    this.#repeating.add(repeating);
    return () => this.#repeating.delete(repeating);
  }

  /** Moves time forward by `ms`, running each tick at the moment it falls due, earliest first. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const next = this.#nextDue();
      if (next === undefined || next.dueAt > until) break;
      this.#now = next.dueAt;
      next.dueAt += next.intervalMs;
      next.tick();
    }
    this.#now = until;
  }

  #nextDue(): Repeating | undefined {
    let earliest: Repeating | undefined;
    for (const repeating of this.#repeating) {
      if (!earliest || repeating.dueAt < earliest.dueAt) earliest = repeating;
    }
    return earliest;
  }
}
