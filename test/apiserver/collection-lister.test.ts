import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createKubeApi, type KubeLister } from "../../src/apiserver/client";
import { MAX_LISTED_OBJECTS } from "../../src/apiserver/list-pages";
import { AUDITED_COCOONSETS, AUDITED_PODS } from "../../src/cli/audit/resources";
import { KubeApiError } from "../../src/contract/reads";
import { type FakeApiserver, startFakeApiserver } from "../support/fake-apiserver";

/*
 * The streaming lister of `cocoon-webhook audit`: whole collections page by
 * page, each page verified as the webhook's LIST is, bounded per page (its
 * bytes, its items, its APISERVER_TIMEOUT), never in total.
 */

let apiserver: FakeApiserver;

const lister = (timeoutMs = 3000, listPageSize = 500): KubeLister =>
  createKubeApi({ timeoutMs, listPageSize, kubeconfigPath: apiserver.kubeconfigPath }).lister;

const pod = (index: number) => ({
  metadata: { name: `p-${index}`, namespace: `ns-${index % 3}` },
  spec: {},
});

async function drain(pages: AsyncIterable<readonly unknown[]>): Promise<number[]> {
  const sizes: number[] = [];
  for await (const page of pages) sizes.push(page.length);
  return sizes;
}

async function failureOf(pages: AsyncIterable<readonly unknown[]>): Promise<KubeApiError> {
  try {
    await drain(pages);
  } catch (error) {
    if (error instanceof KubeApiError) return error;
    throw error;
  }
  throw new Error("the list was read to the end");
}

beforeAll(async () => {
  apiserver = await startFakeApiserver();
});
afterAll(() => apiserver.stop());
afterEach(() => {
  apiserver.clearFailures();
  apiserver.setListPageSize(undefined);
});

describe("KubeLister.pages", () => {
  test("every namespace or one, page by page; built-in items come without apiVersion and kind", async () => {
    apiserver.setList(
      "pods",
      Array.from({ length: 7 }, (_, index) => pod(index)),
    );
    expect(await drain(lister(3000, 3).pages(AUDITED_PODS))).toEqual([3, 3, 1]);
    expect(await drain(lister(3000, 3).pages(AUDITED_PODS, "ns-1"))).toEqual([2]);
    expect(apiserver.requests.at(-1)?.path).toBe("/api/v1/namespaces/ns-1/pods?limit=3");
  });

  test("a custom resource's items must say their kind", async () => {
    apiserver.failPath("/cocoonsets", {
      kind: "answer",
      body: {
        apiVersion: "cocoonset.cocoonstack.io/v1",
        kind: "CocoonSetList",
        metadata: {},
        items: [{ metadata: { name: "s", namespace: "a" } }],
      },
    });
    const error = await failureOf(lister().pages(AUDITED_COCOONSETS));
    expect(error.message).toContain("whose items[0] is an object without apiVersion and kind");
  });

  test("a built-in item of another kind, or with a mistyped field it reads, is refused", async () => {
    const answer = (item: unknown) => ({
      kind: "answer" as const,
      body: { apiVersion: "v1", kind: "PodList", metadata: {}, items: [item] },
    });
    apiserver.failPath("/pods", answer({ apiVersion: "v1", kind: "Secret", metadata: {} }));
    expect((await failureOf(lister().pages(AUDITED_PODS))).message).toContain(
      "items[0] is v1 Secret, not a v1 Pod",
    );
    apiserver.failPath(
      "/pods",
      answer({ metadata: { name: "p", namespace: "a", ownerReferences: "me" }, spec: {} }),
    );
    expect((await failureOf(lister().pages(AUDITED_PODS))).message).toContain(
      "items[0] is a malformed Pod: metadata.ownerReferences: expected a list of objects",
    );
  });

  test("APISERVER_TIMEOUT bounds each page, not the whole list", async () => {
    apiserver.setList(
      "pods",
      Array.from({ length: 5 }, (_, index) => pod(index)),
    );
    apiserver.failNext({ kind: "slow", delayMs: 150 }, 5);
    // Five pages of 150 ms each: past a 400 ms budget shared by all of them, inside one per page.
    expect(await drain(lister(400, 1).pages(AUDITED_PODS))).toEqual([1, 1, 1, 1, 1]);
  });

  test("a total bound far past the webhook's: more objects than its LIST may hold are streamed", async () => {
    apiserver.setList("pods", { count: MAX_LISTED_OBJECTS + 1, make: pod });
    const sizes = await drain(lister().pages(AUDITED_PODS));
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(MAX_LISTED_OBJECTS + 1);
    expect(sizes.every((size) => size <= 500)).toBe(true);
  });

  test("without a cluster configured, every list fails closed", async () => {
    const none = createKubeApi({ timeoutMs: 1000 }).lister;
    expect((await failureOf(none.pages(AUDITED_PODS))).message).toContain(
      "no Kubernetes API is configured",
    );
  });
});
