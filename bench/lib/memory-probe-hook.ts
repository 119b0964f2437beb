/**
 * Imported first by the probe builds of bench/memory.ts: on SIGUSR2 the
 * process appends one JSON line to MEMORY_PROBE_OUT with its JavaScript heap
 * (`heapStats`), how long a full collection of it took (what the collector's
 * full pause costs at that heap) and the heap once more after it. The shipped binary has no such
 * hook; the probe is the same entry point compiled the same way with it.
 */
import { heapStats } from "bun:jsc";
import { appendFileSync } from "node:fs";

function heap() {
  const { heapSize, heapCapacity, extraMemorySize, objectCount } = heapStats();
  return { heapSize, heapCapacity, extraMemorySize, objectCount };
}

const out = process.env.MEMORY_PROBE_OUT;
if (out) {
  process.on("SIGUSR2", () => {
    const before = heap();
    const started = performance.now();
    Bun.gc(true);
    const fullCollectionMs = performance.now() - started;
    const line = { heap: before, fullCollectionMs, afterFullCollection: heap() };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
