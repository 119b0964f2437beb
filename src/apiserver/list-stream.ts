import { cutShort } from "../bounded-text";
import { KubeApiError } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { MalformedField } from "../kube/answer-fields";
import { type ApiResource, apiVersionOf, collectionPath } from "../kube/api-resources";
import { isDnsLabel } from "../kube/name-grammar";
import type { ExpectedList } from "./answer-status";
import { instrumented } from "./instrument";
import { listPages } from "./list-pages";
import type { ApiserverTransport } from "./transport";

/**
 * A page of a streamed LIST holds at most APISERVER_LIST_PAGE_SIZE objects
 * (500 at most) of any size up to etcd's 1.5 MiB; real pods are a few KiB to
 * tens of KiB with their managedFields. 32 MiB holds 500 pods of 64 KiB each
 * and keeps one decoded page well inside a 256 MiB process.
 */
export const MAX_STREAMED_PAGE_BYTES = 32 * 1024 * 1024;

/**
 * Objects of one kind a streamed LIST may hold, well past the 150 000 pods
 * Kubernetes supports in one cluster: with the page size it bounds the pages
 * of a list that never ends (2 000 pages of 500).
 */
export const MAX_STREAMED_OBJECTS = 1_000_000;

/**
 * Whole collections read page by page, for a reader that checks each page
 * and drops it (`cocoon-webhook audit`): memory is bounded by one page, not
 * by the size of the cluster; the pages are bounded by MAX_STREAMED_OBJECTS.
 */
export interface KubeLister {
  /**
   * Every object of `resource` in `namespace`, or in every namespace (and
   * for a cluster-scoped kind) when it is undefined: one verified page at a
   * time, every item checked against `resource.fields`. Throws KubeApiError.
   */
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
        apiVersion: apiVersionOf(resource),
        kind: `${resource.kind}List`,
        itemKind: resource.kind,
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
