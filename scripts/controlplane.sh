#!/usr/bin/env bash
# Prints the folder that holds kube-apiserver, etcd and kubectl for the
# real-control-plane test tier, building them first when needed.
#
#   KUBEBUILDER_ASSETS set (envtest's convention) -> that folder, no build.
#   otherwise -> scripts/go-build-cached.sh builds the `tool` packages of
#   test/controlplane/go.mod into the cache, stamped with the release.
#
# Exit 3 when neither is possible (no Go toolchain and no KUBEBUILDER_ASSETS):
# the caller reports the tier as not run, loudly. Build logs go to stderr.
set -euo pipefail

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if [[ -x "$KUBEBUILDER_ASSETS/kube-apiserver" && -x "$KUBEBUILDER_ASSETS/etcd" ]]; then
    echo "$KUBEBUILDER_ASSETS"
    exit 0
  fi
  echo "KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS holds no executable kube-apiserver and etcd" >&2
  exit 1
fi

if ! command -v go >/dev/null 2>&1; then
  echo "no Go toolchain on PATH and KUBEBUILDER_ASSETS is not set" >&2
  exit 3
fi

scripts_dir="$(cd "$(dirname "$0")" && pwd)"
module_dir="$scripts_dir/../test/controlplane"
kubernetes_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' "$module_dir/go.mod")"
if [[ -z "$kubernetes_version" ]]; then
  echo "test/controlplane/go.mod does not pin k8s.io/kubernetes" >&2
  exit 1
fi

# The replace list must be exactly the release's staging modules: the k8s.io/*
# modules its own go.mod requires at v0.0.0.
upstream_go_mod="$(cd "$module_dir" && go mod download -json "k8s.io/kubernetes@$kubernetes_version" |
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
expected="$(awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" { print $1 }' "$upstream_go_mod" | sort -u)"
replaced="$(awk '$2 == "=>" && $1 ~ /^k8s\.io\// { print $1 }' "$module_dir/go.mod" | sort -u)"
if [[ "$expected" != "$replaced" ]]; then
  echo "test/controlplane/go.mod's replace list differs from k8s.io/kubernetes $kubernetes_version's staging modules:" >&2
  diff <(echo "$expected") <(echo "$replaced") >&2 || true
  exit 1
fi

# `--version` of kube-apiserver and kubectl says the release (the apiserver
# also derives its API emulation version from it).
minor="${kubernetes_version#v1.}"
minor="${minor%%.*}"
ldflags=""
for package in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $package.gitVersion=$kubernetes_version -X $package.gitMajor=1"
  ldflags+=" -X $package.gitMinor=$minor -X $package.gitTreeState=clean"
done

GO_LDFLAGS="$ldflags" GO_BINARY_NAMES="go.etcd.io/etcd/server/v3=etcd" \
  exec "$scripts_dir/go-build-cached.sh" "$module_dir" controlplane
