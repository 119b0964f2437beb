import { cutShort } from "../bounded-text";
import { KubeApiError } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { MalformedField } from "../kube/answer-fields";
import { type ApiResource, apiVersionOf, collectionPath } from "../kube/api-resources";
import { isDnsLabel } from "../kube/name-grammar";
import { type ExpectedList, verifiedListPage } from "./answer-status";
import { instrumented } from "./instrument";
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

/** Bytes of one streamed page: 500 pods of 64 KiB, one decoded page well inside 256 MiB. */
const MAX_STREAMED_PAGE_BYTES = 32 * 1024 * 1024;

/** Objects of one kind a streamed LIST may hold: well past the 150 000 pods of Kubernetes' largest cluster. */
const MAX_STREAMED_OBJECTS = 1_000_000;

/** Whole collections page by page, for a reader that drops each page once checked (`audit`). */
export interface KubeLister {
  /** Every object of `resource` in `namespace` (every namespace when undefined), page by verified page. */
  pages(resource: ApiResource, namespace?: string): AsyncIterable<readonly JsonObject[]>;
}

export function kubeListerOver(
  connected: (operation: string) => ApiserverTransport,
  pageSize: number,
): KubeLister {
  return {
    async *pages(resource, namespace) {
      const scope = namespace === undefined ? "" : ` in ${cutShort(namespace)}`;
      const operation = `LIST ${resource.plural}${scope}`;
      if (namespace !== undefined && (!resource.namespaced || !isDnsLabel(namespace))) {
        throw new KubeApiError(`${operation}: not a namespace a LIST can name`);
      }
      const expected: ExpectedList = {
        ...expectedListOf(resource),
        // Built-in groups (the core group, apps) have no dot, custom resource groups always do.
        itemsMayOmitKind: !resource.group.includes("."),
      };
      const pages = listPages(
        connected(operation),
        collectionPath(resource, namespace),
        operation,
        expected,
        {
          pageSize,
          maxPageBytes: MAX_STREAMED_PAGE_BYTES,
          maxObjects: MAX_STREAMED_OBJECTS,
          maxTotalBytes: Number.POSITIVE_INFINITY,
          budget: "per-page",
        },
      );
      for (;;) {
        const next = await instrumented(
          { verb: "list", resource: resource.plural, operation },
          () => pages.next(),
          () => "success",
        );
        if (next.done) return;
        yield next.value.map((item, index) => verifiedItem(operation, resource, item, index));
      }
    },
  };
}

/** An item whose fields the readers use have the types `resource.fields` requires, else the page is not trusted. */
function verifiedItem(
  operation: string,
  resource: ApiResource,
  item: JsonObject,
  index: number,
): JsonObject {
  const checked = resource.fields(item);
  if (!(checked instanceof MalformedField)) return item;
  throw new KubeApiError(
    `${operation}: apiserver answered a ${resource.kind}List whose items[${index}] is a malformed ` +
      `${resource.kind}: ${cutShort(checked.describe(), 200)}; the answer is not trusted`,
  );
}
