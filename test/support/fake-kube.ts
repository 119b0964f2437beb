import {
  type ParentWorkload,
  parentWorkloadFields,
  type WorkloadResource,
} from "../../src/cocoon/workload";
import { isJsonObject } from "../../src/json/read";
import { type KubeApi, KubeApiError } from "../../src/kube/port";

export interface FakeKubeCall {
  readonly verb: "get" | "list";
  readonly resource: string;
  readonly namespace: string;
  readonly name?: string;
}

/**
 * The in-memory apiserver port for rule unit tests: objects are served from
 * maps, `fail` makes every call throw like an unreachable apiserver, and
 * `calls` records what the rule asked for.
 */
export class FakeKube implements KubeApi {
  readonly calls: FakeKubeCall[] = [];
  readonly workloads = new Map<string, unknown>();
  readonly hibernations = new Map<string, Record<string, unknown>[]>();
  readonly nodes = new Map<string, unknown>();
  readonly pods = new Map<string, unknown>();
  fail: KubeApiError | undefined;
  /** Only calls for these resources fail (with `fail`); all of them when empty. */
  readonly failResources = new Set<string>();

  static key(resource: string, namespace: string, name: string): string {
    return `${resource}/${namespace}/${name}`;
  }

  withWorkload(resource: WorkloadResource, namespace: string, name: string, object: unknown): this {
    this.workloads.set(FakeKube.key(resource, namespace, name), object);
    return this;
  }

  withHibernations(namespace: string, items: Record<string, unknown>[]): this {
    this.hibernations.set(namespace, items);
    return this;
  }

  withNode(name: string, object: unknown): this {
    this.nodes.set(name, object);
    return this;
  }

  withPod(namespace: string, name: string, object: unknown): this {
    this.pods.set(`${namespace}/${name}`, object);
    return this;
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

  private failFor(resource: string): void {
    if (this.fail && (this.failResources.size === 0 || this.failResources.has(resource))) {
      throw this.fail;
    }
  }

  async getNode(name: string): Promise<Record<string, unknown> | undefined> {
    this.calls.push({ verb: "get", resource: "nodes", namespace: "", name });
    this.failFor("nodes");
    return FakeKube.object(`GET nodes ${name}`, this.nodes.get(name));
  }

  async getPod(namespace: string, name: string): Promise<Record<string, unknown> | undefined> {
    this.calls.push({ verb: "get", resource: "pods", namespace, name });
    this.failFor("pods");
    return FakeKube.object(`GET pods ${namespace}/${name}`, this.pods.get(`${namespace}/${name}`));
  }

  /** Like the real port, a stored value that is not an object is an untrusted answer. */
  private static object(operation: string, stored: unknown): Record<string, unknown> | undefined {
    if (stored === undefined) return undefined;
    if (!isJsonObject(stored)) throw new KubeApiError(`${operation}: malformed`);
    return stored;
  }

  /** Like the real port, a stored object whose read fields are mistyped is an untrusted answer. */
  async getWorkload(
    resource: WorkloadResource,
    namespace: string,
    name: string,
  ): Promise<ParentWorkload | undefined> {
    this.calls.push({ verb: "get", resource, namespace, name });
    if (this.fail) throw this.fail;
    const stored = this.workloads.get(FakeKube.key(resource, namespace, name));
    if (stored === undefined) return undefined;
    const verified = parentWorkloadFields.safeParse(stored);
    if (!verified.success)
      throw new KubeApiError(`GET ${resource} ${namespace}/${name}: malformed`);
    return verified.data;
  }

  async listHibernations(namespace: string): Promise<readonly Record<string, unknown>[]> {
    this.calls.push({ verb: "list", resource: "cocoonhibernations", namespace });
    if (this.fail) throw this.fail;
    return this.hibernations.get(namespace) ?? [];
  }
}
