import { cutShort } from "../bounded-text";
import { KubeApiError } from "../contract/reads";
import type { JsonObject } from "../json/read";
import { MalformedField } from "../kube/answer-fields";
import { type ApiResource, collectionPath } from "../kube/api-resources";
import { isDnsLabel } from "../kube/name-grammar";
import type { ExpectedList } from "./answer-status";
import { instrumented } from "./instrument";
import { expectedListOf, listPages } from "./list-pages";
import type { ApiserverTransport } from "./transport";

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
