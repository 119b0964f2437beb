import { describe, expect, test } from "bun:test";
import { createLargeReviewGate } from "../../src/admission/large-reviews";

const KIB = 1024;

/** A decision that finishes when the test says so, recording when it started. */
function pendingDecision(name: string, started: string[]) {
  let finish = () => {};
  const finished = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return {
    decide: async () => {
      started.push(name);
      await finished;
      return name;
    },
    finish: () => finish(),
  };
}

/** Lets a finished decision release its bytes and the gate admit the next through its macrotask. */
async function handedOver() {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

const gate = () => createLargeReviewGate({ largeBytes: 100 * KIB, budgetBytes: 400 * KIB });

describe("the large-review gate", () => {
  test("small reviews run at once, whatever the large ones are doing", async () => {
    const large = gate();
    const started: string[] = [];
    const big = pendingDecision("big", started);
    const running = large.run(400 * KIB, big.decide);
    const waiting = large.run(400 * KIB, pendingDecision("next big", started).decide);
    expect(await large.run(2 * KIB, async () => "small")).toBe("small");
    expect(started).toEqual(["big"]);
    expect(large.decoding).toBe(1);
    expect(large.waiting).toBe(1);
    big.finish();
    expect(await running).toBe("big");
    void waiting;
  });

  test("large reviews share the byte budget, in arrival order", async () => {
    const large = gate();
    const started: string[] = [];
    const decisions = ["a", "b", "c", "d"].map((name) => pendingDecision(name, started));
    const [a, b, c, d] = decisions;
    const answers = [
      large.run(200 * KIB, a?.decide ?? (async () => "")),
      large.run(200 * KIB, b?.decide ?? (async () => "")),
      large.run(300 * KIB, c?.decide ?? (async () => "")),
      large.run(100 * KIB, d?.decide ?? (async () => "")),
    ];
    await Bun.sleep(0);
    expect(started).toEqual(["a", "b"]);
    a?.finish();
    await answers[0];
    await handedOver();
    // c needs 300 KiB while b holds 200: it waits, and d waits behind it.
    expect(started).toEqual(["a", "b"]);
    b?.finish();
    await answers[1];
    await handedOver();
    expect(started).toEqual(["a", "b", "c", "d"]);
    c?.finish();
    d?.finish();
    expect(await Promise.all(answers)).toEqual(["a", "b", "c", "d"]);
    expect(large.decoding).toBe(0);
  });

  test("a body over the budget runs alone; one of unknown length counts as the whole budget", async () => {
    const large = gate();
    const started: string[] = [];
    const huge = pendingDecision("huge", started);
    const unknown = pendingDecision("unknown", started);
    const answers = [large.run(4000 * KIB, huge.decide), large.run(undefined, unknown.decide)];
    await Bun.sleep(0);
    expect(started).toEqual(["huge"]);
    huge.finish();
    await answers[0];
    await handedOver();
    expect(started).toEqual(["huge", "unknown"]);
    unknown.finish();
    await Promise.all(answers);
  });

  test("a decision that fails releases its bytes", async () => {
    const large = gate();
    await expect(
      large.run(400 * KIB, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    await handedOver();
    expect(large.decoding).toBe(0);
    expect(await large.run(400 * KIB, async () => "next")).toBe("next");
  });
});
