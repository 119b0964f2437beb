import { Certificate, Issuer } from "@kubernetes-models/cert-manager/cert-manager.io/v1";
import {
  PrometheusRule,
  ServiceMonitor,
} from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
} from "kubernetes-models/admissionregistration.k8s.io/v1";
import { CustomResourceDefinition } from "kubernetes-models/apiextensions.k8s.io/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { CronJob } from "kubernetes-models/batch/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ClusterRole, ClusterRoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, Namespace, ResourceQuota, Service, ServiceAccount } from "kubernetes-models/v1";
import type { KubeObject } from "./kustomize";

interface Validatable {
  validate(): void;
}

/** A kubernetes-models class; `never` accepts each class's own constructor data type. */
type ModelClass = (new (data: never) => Validatable) & { apiVersion: string; kind: string };

const MODELS: readonly ModelClass[] = [
  Namespace,
  ServiceAccount,
  ResourceQuota,
  Service,
  ConfigMap,
  ClusterRole,
  ClusterRoleBinding,
  Deployment,
  CronJob,
  PodDisruptionBudget,
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  CustomResourceDefinition,
  Issuer,
  Certificate,
  ServiceMonitor,
  PrometheusRule,
];

/**
 * Validates an object against its kind's JSON schema; throws when the schema
 * rejects it or when no model is known for its apiVersion and kind.
 */
export function validateSchema(object: KubeObject): void {
  const model = MODELS.find(
    (candidate) => candidate.apiVersion === object.apiVersion && candidate.kind === object.kind,
  );
  if (model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
  new model(object as never).validate();
}
