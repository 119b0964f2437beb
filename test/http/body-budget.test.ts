import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import {
  COLLECT_ABOVE_HEAP_BYTES,
  COLLECT_ABOVE_RSS_BYTES,
  COLLECT_ANYWAY_ABOVE_RSS_BYTES,
  createLargeReviewGate,
} from "../../src/http/body-budget";
import { eventually } from "../support/eventually";
import { freePort } from "../support/free-port";

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
  test("collects the heap after the last large review only once the process is past 160 MiB", async () => {
    let resident = COLLECT_ABOVE_RSS_BYTES;
    let collections = 0;
    const large = createLargeReviewGate({
      largeBytes: 100 * KIB,
      budgetBytes: 400 * KIB,
      residentBytes: () => resident,
      heapBytes: () => COLLECT_ABOVE_HEAP_BYTES + 1,
      collect: () => collections++,
    });
    await large.run(200 * KIB, async () => "at the threshold");
    await large.run(2 * KIB, async () => "small");
    await handedOver();
    expect(collections).toBe(0);

    resident = COLLECT_ABOVE_RSS_BYTES + 1;
    await large.run(2 * KIB, async () => "small");
    await handedOver();
    expect(collections).toBe(0);
    const first = pendingDecision("first", []);
    const second = pendingDecision("second", []);
    const answers = [large.run(200 * KIB, first.decide), large.run(200 * KIB, second.decide)];
    first.finish();
    await handedOver();
    expect(collections).toBe(0);
    second.finish();
    await Promise.all(answers);
    await handedOver();
    expect(collections).toBe(1);
  });

  test("past 160 MiB, collects only once the heap holds a decoded large review, past 192 MiB whatever it holds", async () => {
    let resident = COLLECT_ABOVE_RSS_BYTES + 1;
    let heap = 0;
    let collections = 0;
    const large = createLargeReviewGate({
      largeBytes: 100 * KIB,
      budgetBytes: 400 * KIB,
      residentBytes: () => resident,
      heapBytes: () => heap,
      collect: () => collections++,
    });
    const review = async () => {
      await large.run(200 * KIB, async () => "large");
      await handedOver();
      return collections;
    };
    expect(await review()).toBe(0);
    heap = COLLECT_ABOVE_HEAP_BYTES;
    expect(await review()).toBe(0);
    heap = COLLECT_ABOVE_HEAP_BYTES + 1;
    expect(await review()).toBe(1);
    resident = COLLECT_ABOVE_RSS_BYTES;
    expect(await review()).toBe(1);
    heap = 0;
    resident = COLLECT_ANYWAY_ABOVE_RSS_BYTES;
    expect(await review()).toBe(1);
    resident = COLLECT_ANYWAY_ABOVE_RSS_BYTES + 1;
    expect(await review()).toBe(2);
  });

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

  test("a body over the budget runs alone", async () => {
    const large = gate();
    const started: string[] = [];
    const huge = pendingDecision("huge", started);
    const next = pendingDecision("next", started);
    const answers = [large.run(4000 * KIB, huge.decide), large.run(100 * KIB, next.decide)];
    await Bun.sleep(0);
    expect(started).toEqual(["huge"]);
    huge.finish();
    await answers[0];
    await handedOver();
    expect(started).toEqual(["huge", "next"]);
    next.finish();
    await Promise.all(answers);
  });

  test("a body of unknown length holds what it has read, growing in steps while there is room", async () => {
    const large = gate();
    const other = pendingDecision("other", []);
    const holding = large.run(150 * KIB, other.decide);
    let grown: Promise<void> | undefined;
    let finish = () => {};
    const running = large.run(undefined, async (turn) => {
      expect(large.heldBytes).toBe(250 * KIB);
      expect(turn.grow(150 * KIB)).toBeUndefined();
      expect(large.heldBytes).toBe(350 * KIB);
      grown = turn.grow(500 * KIB); // past the budget while another holds bytes: waits
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    await Bun.sleep(0);
    expect(grown).toBeInstanceOf(Promise);
    expect(large.heldBytes).toBe(350 * KIB);
    // A turn asked for later waits behind the growth.
    const later = large.run(50 * KIB, async () => "later");
    other.finish();
    await holding;
    await handedOver();
    await grown;
    expect(large.heldBytes).toBe(500 * KIB);
    finish();
    await running;
    expect(await later).toBe("later");
    await handedOver();
    expect(large.heldBytes).toBe(0);
  });

  test("bodies of unknown length are read one at a time, without holding up the turns behind them", async () => {
    const large = gate();
    const started: string[] = [];
    const first = pendingDecision("chunked 1", started);
    const second = pendingDecision("chunked 2", started);
    const sized = pendingDecision("sized", started);
    const answers = [
      large.run(undefined, first.decide),
      large.run(undefined, second.decide),
      large.run(150 * KIB, sized.decide),
    ];
    await Bun.sleep(0);
    expect(started).toEqual(["chunked 1", "sized"]);
    first.finish();
    await answers[0];
    await handedOver();
    expect(started).toEqual(["chunked 1", "sized", "chunked 2"]);
    second.finish();
    sized.finish();
    await Promise.all(answers);
  });

  test("an abandoned growth gives its place up; the turn's bytes return when it ends", async () => {
    const large = gate();
    const other = pendingDecision("other", []);
    const holding = large.run(300 * KIB, other.decide);
    await Bun.sleep(0);
    const abandoned = large.run(undefined, async (turn) => {
      expect(turn.grow(300 * KIB)).toBeInstanceOf(Promise);
      turn.abandon();
      return "abandoned";
    });
    expect(await abandoned).toBe("abandoned");
    other.finish();
    await holding;
    await handedOver();
    expect(large.heldBytes).toBe(0);
    expect(large.waiting).toBe(0);
  });

  test("small bodies hold their bytes too: past their budget, a small one waits for a turn", async () => {
    const large = createLargeReviewGate({
      largeBytes: 100 * KIB,
      budgetBytes: 400 * KIB,
      smallBudgetBytes: 100 * KIB,
    });
    const started: string[] = [];
    const smalls = ["a", "b", "c"].map((name) => pendingDecision(name, started));
    const big = pendingDecision("big", started);
    const running = large.run(400 * KIB, big.decide);
    const answers = smalls.map((small) => large.run(40 * KIB, small.decide));
    await Bun.sleep(0);
    // Two fit the small budget; the third waits behind the large review holding the whole budget.
    expect(started).toEqual(["big", "a", "b"]);
    expect(large.heldBytes).toBe(480 * KIB);
    big.finish();
    await running;
    await handedOver();
    expect(started).toEqual(["big", "a", "b", "c"]);
    for (const small of smalls) small.finish();
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

describe("the large-review gate in a server", () => {
  test("small reviews that arrive while large ones are decoded are answered between them, not after all", async () => {
    const port = freePort();
    const server = Bun.spawn(
      [process.execPath, join(import.meta.dir, "../support/large-review-server.ts"), String(port)],
      { stdout: "ignore", stderr: "inherit" },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await eventually(() => fetch(`${base}/events`).then((response) => response.ok), Boolean);
      const post = (path: string) => fetch(`${base}${path}`, { method: "POST", body: "x" });
      const large = Array.from({ length: 6 }, () => post("/large"));
      // A small review is sent each time a large one is answered, so it arrives while the
      // server decodes the next large one: the answers pace the test, not a clock.
      const small: Promise<Response>[] = [];
      for (const answer of large) {
        await answer;
        small.push(post("/small"));
      }
      await Promise.all(small);
      const order = (await (await fetch(`${base}/events`)).json()) as string[];
      // Bun calls every request whose bytes have arrived before it polls for more: without the
      // handover on a later turn, all six large reviews run before the small ones (the first
      // small one may slip in by the client's timing alone). How many large ones run between two
      // small ones depends on when the client's small ones arrive, which a busy machine delays.
      const beforeTheLastLarge = order.slice(0, order.lastIndexOf("large"));
      expect(beforeTheLastLarge.filter((event) => event === "small").length).toBeGreaterThan(1);
      expect(order.filter((event) => event === "small")).toHaveLength(6);
    } finally {
      server.kill();
    }
  });
});
