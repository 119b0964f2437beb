#!/usr/bin/env bash
# End-to-end check in a throwaway kind cluster: installs cert-manager, the
# test-only CocoonSet/CocoonHibernation CRDs and manifests/default with a
# locally built image, then proves the three core policies.
# Needs kind, docker and kubectl. KEEP_CLUSTER=1 leaves the cluster running;
# KIND_NODE_IMAGE picks the Kubernetes version (matchConditions need >= 1.28).
set -euo pipefail

cluster=${KIND_CLUSTER:-cocoon-webhook-e2e}
image=ghcr.io/cocoonstack/cocoon-webhook:kind-e2e
cert_manager_version=${CERT_MANAGER_VERSION:-v1.16.2}
operator=system:serviceaccount:cocoon-system:cocoon-operator
ns=cocoon-e2e
root=$(cd "$(dirname "$0")/.." && pwd)
overlay=$root/.dev/kind-e2e

cd "$root"
log() { printf '\n== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
retry() { # cert-manager's own webhook can lag behind its Deployment turning Available
  local attempt
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    "$@" && return 0
    echo "retrying ($attempt) in 5s: $*"
    sleep 5
  done
  return 1
}

created=0
cleanup() { # only a cluster this run created
  if [[ $created == 1 && ${KEEP_CLUSTER:-0} != 1 ]]; then kind delete cluster --name "$cluster"; fi
}
trap cleanup EXIT

# Runs a kubectl command that must be denied by cocoon-webhook (not by RBAC
# or a webhook call failure): the denial message carries the prefix.
expect_denied() {
  local what=$1 out
  shift
  if out=$("$@" 2>&1); then fail "$what: admitted, expected a denial"; fi
  grep -q 'cocoon-webhook: ' <<<"$out" || fail "$what: failed without a cocoon-webhook denial: $out"
  printf 'ok: %s denied: %s\n' "$what" "$(grep -o 'cocoon-webhook: .*' <<<"$out" | head -n1)"
}

log "cluster $cluster"
if ! kind get clusters | grep -qx "$cluster"; then
  kind create cluster --name "$cluster" --wait 120s ${KIND_NODE_IMAGE:+--image "$KIND_NODE_IMAGE"}
  created=1
fi
kubectl config use-context "kind-$cluster" >/dev/null

log "cert-manager $cert_manager_version"
kubectl apply -f "https://github.com/cert-manager/cert-manager/releases/download/$cert_manager_version/cert-manager.yaml"
kubectl -n cert-manager wait --for=condition=Available deployment --all --timeout=300s

log "image $image"
docker build -t "$image" --build-arg REVISION="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" .
kind load docker-image "$image" --name "$cluster"

log "the cocoon CRDs (manifests/crds)"
kubectl apply -f manifests/crds/
kubectl wait --for=condition=Established --timeout=60s \
  crd/cocoonsets.cocoonset.cocoonstack.io crd/cocoonhibernations.cocoonset.cocoonstack.io

server_minor=$(kubectl version -o json | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | tail -n1)
manifests=default
if ((server_minor < 28)); then manifests=default-no-match-conditions; fi

log "cocoon-webhook (manifests/$manifests, image tag kind-e2e)"
mkdir -p "$overlay"
cat >"$overlay/kustomization.yaml" <<EOF
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - ../../manifests/$manifests
images:
  - name: ghcr.io/cocoonstack/cocoon-webhook
    newTag: kind-e2e
EOF
# The install does not own the shared namespace; the operator normally creates it.
kubectl apply -k manifests/namespace
retry kubectl apply -k "$overlay"
kubectl -n cocoon-system wait --for=condition=Ready certificate/cocoon-webhook-tls --timeout=120s
kubectl -n cocoon-system rollout status deployment/cocoon-webhook --timeout=180s

# A fresh namespace, so a kept cluster can run the script again.
kubectl delete namespace "$ns" --ignore-not-found --wait
kubectl create namespace "$ns"
# The operator identity needs RBAC of its own to create pods when impersonated.
kubectl -n "$ns" create rolebinding cocoon-operator-e2e --clusterrole=edit \
  --serviceaccount=cocoon-system:cocoon-operator --dry-run=client -o yaml | kubectl apply -f -

cocoon_pod() { # name, then optional extra metadata lines (owner references)
  cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $1
  namespace: $ns
${2:-}
spec:
  containers:
    - name: main
      image: registry.k8s.io/pause:3.10
  tolerations:
    - key: virtual-kubelet.io/provider
      operator: Exists
EOF
}

log "waiting until the apiserver reaches the webhook (CA injected, endpoints ready)"
for _ in $(seq 60); do
  if ! out=$(cocoon_pod probe | kubectl create --dry-run=server -f - 2>&1) &&
    grep -q 'cocoon-webhook: ' <<<"$out"; then
    break
  fi
  sleep 2
done
grep -q 'cocoon-webhook: ' <<<"${out:-}" || fail "webhook never answered: ${out:-}"

log "1. a bare pod with the cocoon toleration is denied"
expect_denied "bare cocoon pod" kubectl create -f - <<<"$(cocoon_pod bare)"

log "2. a CocoonSet-owned pod created by the operator is admitted"
kubectl apply -f - <<EOF
apiVersion: cocoonset.cocoonstack.io/v1
kind: CocoonSet
metadata:
  name: demo
  namespace: $ns
spec:
  snapshotPolicy: always
  agent:
    image: ubuntu:24.04
    replicas: 0
EOF
uid=$(kubectl -n "$ns" get cocoonset demo -o jsonpath='{.metadata.uid}')
owner="  ownerReferences:
    - apiVersion: cocoonset.cocoonstack.io/v1
      kind: CocoonSet
      name: demo
      uid: $uid"
kubectl create --as="$operator" -f - <<<"$(cocoon_pod demo-0 "$owner")" ||
  fail "operator-created CocoonSet pod was not admitted"
echo "ok: operator-created CocoonSet pod admitted"
expect_denied "owned pod from another user" kubectl create -f - <<<"$(cocoon_pod demo-1 "$owner")"

log "3. scaling down a cocoon-tolerated Deployment is denied"
kubectl apply -f - <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vm-workload
  namespace: $ns
spec:
  replicas: 2
  selector:
    matchLabels: {app: vm-workload}
  template:
    metadata:
      labels: {app: vm-workload}
    spec:
      containers:
        - name: main
          image: registry.k8s.io/pause:3.10
      tolerations:
        - key: virtual-kubelet.io/provider
          operator: Exists
EOF
expect_denied "kubectl scale --replicas=1" kubectl -n "$ns" scale deployment/vm-workload --replicas=1
expect_denied "kubectl scale --replicas=0" kubectl -n "$ns" scale deployment/vm-workload --replicas=0
expect_denied "patch spec.replicas down" \
  kubectl -n "$ns" patch deployment/vm-workload --type=merge -p '{"spec":{"replicas":1}}'
kubectl -n "$ns" scale deployment/vm-workload --replicas=3 || fail "scale-up was denied"
echo "ok: scale-up admitted"

kubectl -n "$ns" create deployment plain --image=registry.k8s.io/pause:3.10 --replicas=2
kubectl -n "$ns" scale deployment/plain --replicas=0 || fail "plain Deployment scale-down was denied"
echo "ok: scale-down of a non-cocoon Deployment admitted"

log "kind e2e passed"
