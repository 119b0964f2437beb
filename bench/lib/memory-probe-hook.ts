/**
 * Imported first by the probe builds of bench/memory.ts: on SIGUSR2 the
 * process appends one JSON line to MEMORY_PROBE_OUT with its JavaScript heap
 * (`heapStats`) and the heap once more after a full collection. The shipped binary has no such
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
    Bun.gc(true);
    const line = { heap: before, afterFullCollection: heap() };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
