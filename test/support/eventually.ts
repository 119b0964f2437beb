/**
 * Polls `probe` every `everyMs` until `until` holds or `timeoutMs` has passed,
 * and returns the last value, so the test's own assertion says what was
 * expected. A probe that throws counts as not yet (a server still starting).
 */
export async function eventually<T>(
  probe: () => T | Promise<T>,
  until: (value: T) => boolean,
  timeoutMs = 5000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve()
      .then(probe)
      .catch(() => undefined as T);
    if ((value !== undefined && until(value)) || Date.now() > deadline) return value;
    await Bun.sleep(everyMs);
  }
}

/** Waits until `condition` holds, at most `timeoutMs`; the assertion after it says what failed. */
export const waitUntil = (condition: () => boolean, timeoutMs = 5000, everyMs = 20) =>
  eventually(condition, Boolean, timeoutMs, everyMs);
