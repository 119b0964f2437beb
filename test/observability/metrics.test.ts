import { describe, expect, test } from "bun:test";
import { Counter, Registry } from "prom-client";
import { cachedExposition } from "../../src/observability/metrics";
import { ManualClock } from "../support/manual-clock";

function countingRegistry() {
  const registry = new Registry();
  const counter = new Counter({ name: "c", help: "h", registers: [registry] });
  let renders = 0;
  const metrics = registry.metrics.bind(registry);
  registry.metrics = () => {
    renders++;
    return metrics();
  };
  return { registry, counter, renders: () => renders };
}

describe("cachedExposition", () => {
  test("concurrent scrapes share one render; scrapes within the interval get the cached text", async () => {
    const { registry, counter, renders } = countingRegistry();
    const scrape = cachedExposition(() => registry.metrics(), 200);
    const concurrent = await Promise.all(Array.from({ length: 50 }, () => scrape()));
    expect(renders()).toBe(1);
    expect(new Set(concurrent).size).toBe(1);
    counter.inc();
    expect(await scrape()).toBe(concurrent[0] ?? "");
    expect(renders()).toBe(1);
  });

  test("a scrape after the interval renders again and sees new values", async () => {
    const { registry, counter, renders } = countingRegistry();
    const clock = new ManualClock();
    const scrape = cachedExposition(() => registry.metrics(), 20, clock);
    expect(await scrape()).toContain("c 0");
    counter.inc();
    clock.advance(19);
    expect(await scrape()).toContain("c 0");
    clock.advance(1);
    expect(await scrape()).toContain("c 1");
    expect(renders()).toBe(2);
  });

  test("a failed render is not cached", async () => {
    const { registry, renders } = countingRegistry();
    const metrics = registry.metrics.bind(registry);
    registry.metrics = () => Promise.reject(new Error("boom"));
    const scrape = cachedExposition(() => registry.metrics(), 10_000);
    await expect(scrape()).rejects.toThrow("boom");
    registry.metrics = metrics;
    expect(await scrape()).toContain("# TYPE c counter");
    expect(renders()).toBe(1);
  });
});
