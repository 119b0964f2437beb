/**
 * Polls `probe` every `everyMs` until `until` holds or `timeoutMs` has passed,
 * and returns the last value, so the test's own assertion says what was
 * expected. A probe that throws counts as not yet (a server still starting).
 */
export async function eventually<T>(
  probe: () => Promise<T>,
  until: (value: T) => boolean,
  timeoutMs = 5000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined as T);
    if ((value !== undefined && until(value)) || Date.now() > deadline) return value;
    await Bun.sleep(everyMs);
  }
}
