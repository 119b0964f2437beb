import { KubeApiError } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { type ApiResource, collectionPath } from "../kube/api-resources";
import type { ReadHold } from "./read-budget";
import type { ApiserverTransport } from "./transport";
import { verifiedListPage } from "./verified-answers";

/** Objects asked for per LIST page (`?limit=`): APISERVER_LIST_PAGE_SIZE's default. */
export const LIST_PAGE_LIMIT = 500;
/** Objects a LIST may hold before it is refused, whatever the page size: 100 pages of 500. */
export const MAX_LISTED_OBJECTS = 50_000;
/** Bytes of the pages of one LIST together, whose items are all kept until it ends. */
export const MAX_LIST_BYTES = 24 * 1024 * 1024;

/** The webhook's LIST: pages of CocoonHibernations of a few hundred bytes, kept until the last. */
export const KEPT_LIST_BOUNDS = {
  maxPageBytes: 8 * 1024 * 1024,
  maxObjects: MAX_LISTED_OBJECTS,
  maxTotalBytes: MAX_LIST_BYTES,
};

/**
 * audit's LIST drops each page once checked, so only a page is bounded: 500 pods of 64 KiB;
 * the object count is well past the 150 000 pods of Kubernetes' largest cluster.
 */
export const STREAMED_LIST_BOUNDS = {
  maxPageBytes: 32 * 1024 * 1024,
  maxObjects: 1_000_000,
  maxTotalBytes: Number.POSITIVE_INFINITY,
};

interface ListPagesOptions {
  readonly operation: string;
  /** `?limit=` of each page (APISERVER_LIST_PAGE_SIZE); a page with more items is refused. */
  readonly pageSize: number;
  readonly maxPageBytes: number;
  readonly maxObjects: number;
  readonly maxTotalBytes: number;
  /** One APISERVER_TIMEOUT for every page; without it, each page has its own. */
  readonly signal?: AbortSignal;
  readonly hold?: ReadHold;
}

/**
 * Follows `metadata.continue`, each page verified and bounded before it is
 * yielded; a continue token that comes back is refused, as the list would never end.
 */
export async function* listPages(
  transport: ApiserverTransport,
  resource: ApiResource,
  namespace: string | undefined,
  { operation, pageSize, maxPageBytes, maxObjects, maxTotalBytes, signal, hold }: ListPagesOptions,
): AsyncGenerator<readonly JsonObject[]> {
  const path = collectionPath(resource, namespace);
  const maxPages = Math.ceil(maxObjects / pageSize);
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
      maxBytes: maxPageBytes,
      signal,
      hold,
    });
    listedBytes += Buffer.byteLength(answer.body);
    if (listedBytes > maxTotalBytes) {
      throw new KubeApiError(
        `${operation}: the pages so far come to more than ${maxTotalBytes} bytes; refusing to read more`,
      );
    }
    const listed = verifiedListPage(operation, answer, resource, pageSize);
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
