import type { JsonObject } from "../json/read";
import { type ExpectedList, verifiedListPage } from "./answers";
import type { ApiserverTransport } from "./http";
import { KubeApiError } from "./port";

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
  /**
   * One APISERVER_TIMEOUT for all pages (the webhook: the verdict must arrive
   * in time), or one per page (audit: a list of 100 000 pods takes minutes).
   */
  readonly budget: "shared" | "per-page";
}

/**
 * A LIST page by page, following `metadata.continue`: each page verified
 * (the list kind asked for, every item of the item kind, at most `pageSize`
 * items) before it is yielded.
 */
export async function* listPages(
  transport: ApiserverTransport,
  path: string,
  operation: string,
  expected: ExpectedList,
  options: ListPagesOptions,
): AsyncGenerator<readonly JsonObject[]> {
  const { pageSize, maxObjects } = options;
  const shared = options.budget === "shared" ? transport.budget() : undefined;
  const maxPages = Math.ceil(maxObjects / pageSize);
  let continueToken: string | undefined;
  for (let page = 1; page <= maxPages; page++) {
    const query = new URLSearchParams({ limit: String(pageSize) });
    if (continueToken) query.set("continue", continueToken);
    const answer = await transport.get(`${path}?${query}`, {
      operation,
      maxBytes: options.maxPageBytes,
      budget: shared ?? transport.budget(),
    });
    const listed = verifiedListPage(operation, answer, expected);
    if (listed.items.length > pageSize) {
      throw new KubeApiError(
        `${operation}: apiserver answered a page of ${listed.items.length} items to a request ` +
          `for at most ${pageSize}; the answer is not trusted`,
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
