import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createKubeApi, MAX_OBJECT_ANSWER_BYTES } from "../../src/apiserver/client";
import { MAX_LIST_BYTES } from "../../src/apiserver/list-pages";
import {
  ANSWERS_BUDGET_BYTES,
  COLLECT_AFTER_BYTES,
  createReadBudget,
  decodedCost,
  MAX_READS_IN_FLIGHT,
} from "../../src/apiserver/read-budget";
import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { LARGE_REVIEW_BYTES, SMALL_BODIES_BUDGET_BYTES } from "../../src/http/body-budget";
import { MAX_DECODED_CONTAINERS } from "../../src/json/containers";
import { NODES } from "../../src/kube/api-resources";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";
import { kubeApiErrorFrom, metricDeltas } from "./helpers";

/*
 * One budget for what the reads reviews wait on hold: the reads in flight,
 * refused at once past their bound, and the bytes of their answers and of
 * what decoding them costs; an answer denser than a review may be is
 * refused before it is decoded.
 */

let apiserver: FakeApiserver;

beforeAll(async () => {
  apiserver = await startFakeApiserver();
  apiserver.setNode("vm-node", { apiVersion: "v1", kind: "Node", metadata: { name: "vm-node" } });
});
afterAll(() => apiserver.stop());
afterEach(() => apiserver.clearFailures());

const kubeApi = (readBudget = {}) =>
  createKubeApi({ timeoutMs: 3000, kubeconfigPath: apiserver.kubeconfigPath, readBudget }).api;

describe("reads in flight", () => {
  test(`past ${MAX_READS_IN_FLIGHT} waiting on a slow apiserver, one more is refused at once, unsent and uncounted`, async () => {
    const api = kubeApi();
    apiserver.failAlways({ kind: "slow", delayMs: 400 });
    const waiting = Array.from({ length: MAX_READS_IN_FLIGHT }, () =>
      api.get(NODES, { name: "vm-node" }),
    );
    const sent = apiserver.requests.length;
    const deltas = await metricDeltas("get", "nodes", async () => {
      const error = await kubeApiErrorFrom(api.get(NODES, { name: "vm-node" }));
      expect(error.message).toBe(
        `GET nodes vm-node: ${MAX_READS_IN_FLIGHT} apiserver reads are already waiting for ` +
          "answers, the most the webhook waits on at once; refused at once rather than queued " +
          "(the apiserver is slow or unreachable, or reviews that need a read arrive faster than it answers)",
      );
    });
    expect(deltas).toEqual({ outcomes: {}, durations: 0 });
    expect(apiserver.requests.length).toBe(sent);
    // The reads in flight are answered, and then there is room again.
    for (const node of await Promise.all(waiting)) expect(node).toMatchObject({ kind: "Node" });
    apiserver.clearFailures();
    expect(await api.get(NODES, { name: "vm-node" })).toMatchObject({ kind: "Node" });
  });

  test("a read that fails gives its place back", async () => {
    const api = kubeApi({ maxReads: 1 });
    apiserver.failNext({ kind: "status", status: 500 });
    await kubeApiErrorFrom(api.get(NODES, { name: "vm-node" }));
    expect(await api.get(NODES, { name: "vm-node" })).toMatchObject({ kind: "Node" });
  });
});

describe("what the answers hold", () => {
  test("an answer within the byte cap but denser than a review may be is refused before it is decoded", async () => {
    const api = kubeApi();
    const dense = `{"items":[${"{},".repeat(MAX_DECODED_CONTAINERS)}{}]}`;
    expect(dense.length).toBeLessThan(MAX_OBJECT_ANSWER_BYTES);
    apiserver.failNext({ kind: "answer", body: dense });
    const error = await kubeApiErrorFrom(api.get(NODES, { name: "vm-node" }));
    expect(error.message).toBe(
      `GET nodes vm-node: apiserver answered 200 with a body holding more than ` +
        `${MAX_DECODED_CONTAINERS} JSON objects and arrays, more than one answer may decode; no ` +
        "object or page the apiserver stores is shaped like that; such an answer is refused unread",
    );
  });

  test("the pages of one LIST are charged together until it ends; past the budget it fails closed naming it", async () => {
    const page = (items: unknown[], next?: string) => ({
      kind: "answer" as const,
      body: {
        apiVersion: "cocoonset.cocoonstack.io/v1",
        kind: "CocoonHibernationList",
        metadata: next ? { continue: next } : {},
        items,
      },
    });
    const item = (name: string) => ({
      apiVersion: "cocoonset.cocoonstack.io/v1",
      kind: "CocoonHibernation",
      metadata: { name, namespace: "team-a" },
      spec: { podRef: { name }, padding: "x".repeat(200_000) },
    });
    const pageBytes = JSON.stringify(page([item("a"), item("b")], "p-2").body).length;
    // Room for two pages' text and decoding, not for three.
    const budgetBytes = 3 * decodedCost(pageBytes, 8) - 1;
    const api = kubeApi({ budgetBytes });
    apiserver.failNext(page([item("a"), item("b")], "p-2"));
    apiserver.failNext(page([item("c"), item("d")], "p-3"));
    apiserver.failNext(page([item("e"), item("f")]));
    const error = await kubeApiErrorFrom(api.list(COCOONHIBERNATIONS, "team-a"));
    expect(error.message).toBe(
      "LIST cocoonhibernations in team-a: its answer would take the apiserver answers held at " +
        `once past ${budgetBytes} bytes (their text and decoded values); refused before decoding it`,
    );
    // Once it ended, all of it is given back: a LIST of two pages fits.
    apiserver.failNext(page([item("a"), item("b")], "p-2"));
    apiserver.failNext(page([item("c"), item("d")]));
    expect(await api.list(COCOONHIBERNATIONS, "team-a")).toHaveLength(4);
  });

  test("the largest LIST the webhook reads fits the budget", () => {
    // 50 000 CocoonHibernations in MAX_LIST_BYTES: about four objects each.
    expect(decodedCost(MAX_LIST_BYTES, 4 * 50_000)).toBeLessThan(ANSWERS_BUDGET_BYTES);
  });

  test("a read whose answers were large is followed by one collection, once its caller is done", async () => {
    let collections = 0;
    const budget = createReadBudget({ collect: () => collections++ });
    const small = budget.begin("GET small");
    small.charge(COLLECT_AFTER_BYTES - 1);
    small.end();
    const large = [budget.begin("LIST a"), budget.begin("LIST b")];
    for (const hold of large) {
      hold.charge(COLLECT_AFTER_BYTES);
      hold.end();
    }
    expect(collections).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(collections).toBe(1);
  });

  test("held bytes and reads come back to zero", () => {
    const budget = createReadBudget({ maxReads: 2, budgetBytes: 100, collect: () => {} });
    const first = budget.begin("GET a");
    first.charge(60);
    const second = budget.begin("GET b");
    expect(() => second.charge(41)).toThrow("GET b: its answer would take");
    second.charge(40);
    expect(() => budget.begin("GET c")).toThrow("GET c: 2 apiserver reads are already waiting");
    first.end();
    first.end();
    second.end();
    // Everything came back once, not twice: room for two reads and 100 bytes, and no more.
    const [third, fourth] = [budget.begin("GET d"), budget.begin("GET e")];
    third.charge(100);
    expect(() => fourth.charge(1)).toThrow("GET e: its answer would take");
    expect(() => budget.begin("GET f")).toThrow("GET f: 2 apiserver reads are already waiting");
  });
});

describe("reads in flight and the small reviews' room", () => {
  test("the reviews waiting on reads hold at most half the room small bodies share", () => {
    expect(MAX_READS_IN_FLIGHT * LARGE_REVIEW_BYTES).toBeLessThanOrEqual(
      SMALL_BODIES_BUDGET_BYTES / 2,
    );
  });
});
