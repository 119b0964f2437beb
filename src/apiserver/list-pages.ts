import { KubeApiError } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { type ApiResource, apiVersionOf } from "../kube/api-resources";
import { type ExpectedList, verifiedListPage } from "./answer-status";
import type { ReadHold } from "./read-budget";
import type { ApiserverTransport } from "./transport";

/** What a LIST of `resource` must answer: its List kind, each item of its kind. */
export function expectedListOf(resource: ApiResource): ExpectedList {
  return {
    apiVersion: apiVersionOf(resource),
    kind: `${resource.kind}List`,
    itemKind: resource.kind,
  };
}

export interface ListPagesOptions {
  /** `?limit=` of each page (APISERVER_LIST_PAGE_SIZE); a page with more items is refused. */
  readonly pageSize: number;
  /** A page body larger than this is a failed call. */
  readonly maxPageBytes: number;
  /** Objects the whole list may hold before it is refused; with the page size it bounds the pages. */
  readonly maxObjects: number;
  /** Bytes of all pages together (Infinity for audit, which drops each page once checked). */
  readonly maxTotalBytes: number;
  /** One APISERVER_TIMEOUT for all pages (the webhook's verdict), or one per page (audit). */
  readonly budget: "shared" | "per-page";
  /** The read's hold on the answers' budget, for pages that are kept until the read ends. */
  readonly hold?: ReadHold;
}

/**
 * A LIST page by page, following `metadata.continue`, each page verified and
 * held to the totals before it is yielded; a continue token that comes back
 * is refused, as the list would go round forever.
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
  // Hashes, not the tokens: a hostile token may be as long as a page.
  const tokensSeen = new Set<bigint | number>();
  for (let page = 1; page <= maxPages; page++) {
    const query = new URLSearchParams({ limit: String(pageSize) });
    if (continueToken) query.set("continue", continueToken);
    const answer = await transport.get(`${path}?${query}`, {
      operation,
      maxBytes: options.maxPageBytes,
      budget: shared ?? transport.budget(),
      ...(options.hold ? { hold: options.hold } : {}),
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
    const seen = Bun.hash(continueToken);
    if (tokensSeen.has(seen)) {
      throw new KubeApiError(
        `${operation}: page ${page} carries a continue token an earlier page carried, so the list ` +
          "would never end; refusing to read more (the apiserver, or something in between, " +
          "answers the same pages again)",
      );
    }
    tokensSeen.add(seen);
  }
  throw new KubeApiError(
    `${operation}: the list did not end after ${maxPages} pages of ${pageSize}; ` +
      "refusing to read more",
  );
}
