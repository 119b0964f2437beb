import {
  type ParentWorkload,
  parentWorkloadFields,
  type WorkloadResource,
} from "../../src/cocoon/workload";
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
  fail: KubeApiError | undefined;

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

  failing(message = "connect ECONNREFUSED 127.0.0.1:6443", status?: number): this {
    this.fail = new KubeApiError(message, status);
    return this;
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
