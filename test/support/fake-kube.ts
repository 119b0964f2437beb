import { COCOONHIBERNATIONS } from "../../src/cocoon/crd-resources";
import { WORKLOADS, type WorkloadResource } from "../../src/cocoon/workload";
import { type KubeApi, KubeApiError, type ObjectRef } from "../../src/contract/reads";
import { isJsonObject, type JsonObject } from "../../src/json/read";
import { MalformedField } from "../../src/kube/answer-fields";
import { type ApiResource, NODES, PODS } from "../../src/kube/api-resources";

export interface FakeKubeCall {
  readonly verb: "get" | "list";
  readonly resource: string;
  readonly namespace: string;
  readonly name?: string;
}

/**
 * The in-memory apiserver port for handler unit tests: objects are served
 * from a map by resource, namespace and name, `fail` makes every call throw
 * like an unreachable apiserver, and `calls` records what the handler asked
 * for. Like the real port, a stored object whose read fields are mistyped is
 * an untrusted answer.
 */
export class FakeKube implements KubeApi {
  readonly calls: FakeKubeCall[] = [];
  readonly #objects = new Map<string, unknown>();
  readonly #lists = new Map<string, readonly JsonObject[]>();
  fail: KubeApiError | undefined;
  /** Only calls for these resources fail (with `fail`); all of them when empty. */
  readonly failResources = new Set<string>();

  static #key(resource: ApiResource, namespace: string, name = ""): string {
    return `${resource.plural}/${namespace}/${name}`;
  }

  withObject(resource: ApiResource, { namespace = "", name }: ObjectRef, object: unknown): this {
    this.#objects.set(FakeKube.#key(resource, namespace, name), object);
    return this;
  }

  withWorkload(resource: WorkloadResource, namespace: string, name: string, object: unknown): this {
    return this.withObject(WORKLOADS[resource], { namespace, name }, object);
  }

  withHibernations(namespace: string, items: JsonObject[]): this {
    this.#lists.set(FakeKube.#key(COCOONHIBERNATIONS, namespace), items);
    return this;
  }

  withNode(name: string, object: unknown): this {
    return this.withObject(NODES, { name }, object);
  }

  withPod(namespace: string, name: string, object: unknown): this {
    return this.withObject(PODS, { namespace, name }, object);
  }

  failing(message = "connect ECONNREFUSED 127.0.0.1:6443", status?: number): this {
    this.fail = new KubeApiError(message, status);
    return this;
  }

  /** Calls for `resource` fail; the others keep answering. */
  failingFor(resource: "nodes" | "pods", message?: string, status?: number): this {
    this.failResources.add(resource);
    return this.failing(message, status);
  }

  #failFor(resource: ApiResource): void {
    if (this.fail && (this.failResources.size === 0 || this.failResources.has(resource.plural))) {
      throw this.fail;
    }
  }

  async get<Fields extends JsonObject>(
    resource: ApiResource<Fields>,
    { namespace = "", name }: ObjectRef,
  ): Promise<Fields | undefined> {
    this.calls.push({ verb: "get", resource: resource.plural, namespace, name });
    this.#failFor(resource);
    const stored = this.#objects.get(FakeKube.#key(resource, namespace, name));
    if (stored === undefined) return undefined;
    const operation = `GET ${resource.plural} ${namespace ? `${namespace}/` : ""}${name}`;
    if (!isJsonObject(stored)) throw new KubeApiError(`${operation}: malformed`);
    const checked = resource.fields(stored);
    if (checked instanceof MalformedField) throw new KubeApiError(`${operation}: malformed`);
    return checked;
  }

  async list(resource: ApiResource, namespace: string): Promise<readonly JsonObject[]> {
    this.calls.push({ verb: "list", resource: resource.plural, namespace });
    this.#failFor(resource);
    return this.#lists.get(FakeKube.#key(resource, namespace)) ?? [];
  }
}
