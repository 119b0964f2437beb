import type { JsonObject } from "../json/read";
import { type ExpectedList, verifiedListPage } from "./answers";
import type { ApiserverTransport } from "./http";
import { KubeApiError } from "./kube-api";

export interface ListPagesOptions {
  /** `?limit=` of each page (APISERVER_LIST_PAGE_SIZE); a page with more items is refused. */
  readonly pageSize: number;
  /** A page body larger than this is a failed call. */
  readonly maxPageBytes: number;
  /**
   * Objects the whole list may hold before it is refused. The webhook keeps
   * every item of its LIST, so it bounds the total; a reader that checks each
   * page and drops it (audit) passes Infinity and is bounded per page only.
   */
  readonly maxObjects: number;
  /** Bytes of all pages together, bounded for the same reason (Infinity for audit). */
  readonly maxTotalBytes: number;
  /**
   * One APISERVER_TIMEOUT for all pages (the webhook: the verdict must arrive
   * in time), or one per page (audit: a list of 100 000 pods takes minutes).
   */
  readonly budget: "shared" | "per-page";
}

/**
 * A LIST page by page, following `metadata.continue`: each page verified
 * (the list kind asked for, at most `pageSize` items counted before any is
 * decoded, every item of the item kind) and checked against the totals
 * before it is yielded.
 */
export async function* listPages(
  transport: ApiserverTransport,
  path: string,
  operation: string,
  expected: ExpectedList,
  options: ListPagesOptions,
): AsyncGenerator<readonly JsonObject[]> {
  const { pageSize, maxObjects, maxTotalBytes } = options;
  const shared = options.budget === "shared" ? transport.budget() : undefined;
  const maxPages = Math.ceil(maxObjects / pageSize);
  const expectedPage: ExpectedList = { ...expected, maxItems: pageSize };
  let listedObjects = 0;
  let listedBytes = 0;
  let continueToken: string | undefined;
  for (let page = 1; page <= maxPages; page++) {
    const query = new URLSearchParams({ limit: String(pageSize) });
    if (continueToken) query.set("continue", continueToken);
    const answer = await transport.get(`${path}?${query}`, {
      operation,
      maxBytes: options.maxPageBytes,
      budget: shared ?? transport.budget(),
    });
    listedBytes += Buffer.byteLength(answer.body);
    if (listedBytes > maxTotalBytes) {
      throw new KubeApiError(
        `${operation}: the pages so far come to more than ${maxTotalBytes} bytes; refusing to read more`,
      );
    }
    const listed = verifiedListPage(operation, answer, expectedPage);
    listedObjects += listed.items.length;
    if (listedObjects > maxObjects) {
      throw new KubeApiError(
        `${operation}: the list holds more than ${maxObjects} objects; refusing to read more`,
      );
    }
    yield listed.items;
    if (!listed.continueToken) return;
    continueToken = listed.continueToken;
  }
  throw new KubeApiError(
    `${operation}: the list did not end after ${maxPages} pages of ${pageSize}; ` +
      "refusing to read more",
  );
}
