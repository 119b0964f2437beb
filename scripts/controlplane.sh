#!/usr/bin/env bash
# Prints the folder that holds kube-apiserver, etcd and kubectl for the
# real-control-plane test tier, building them first when needed.
#
#   KUBEBUILDER_ASSETS set (envtest's convention) -> that folder, no build.
#   otherwise -> binaries built from the Go module in test/controlplane, in a
#   cache outside the work tree keyed by the module's pinned versions, so a
#   warm run only checks that the three files are there.
#
# Exit 3 when neither is possible (no Go toolchain and no KUBEBUILDER_ASSETS):
# the caller reports the tier as not run, loudly. Build logs go to stderr.
set -euo pipefail

binaries=(kube-apiserver etcd kubectl)

has_binaries() {
  local dir=$1 binary
  for binary in "${binaries[@]:0:2}"; do
    [[ -x "$dir/$binary" ]] || return 1
  done
}

if [[ -n "${KUBEBUILDER_ASSETS:-}" ]]; then
  if has_binaries "$KUBEBUILDER_ASSETS"; then
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

module_dir="$(cd "$(dirname "$0")/../test/controlplane" && pwd)"
kubernetes_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2 }' "$module_dir/go.mod")"
if [[ -z "$kubernetes_version" ]]; then
  echo "test/controlplane/go.mod does not pin k8s.io/kubernetes" >&2
  exit 1
fi
# go.sum fixes every module in the build; the Go version changes the code generated.
key="$(cat "$module_dir/go.sum" <(go env GOVERSION GOARCH) | sha256sum | cut -c1-12)"
cache_root="${COCOON_CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cocoon-webhook/controlplane}"
cache_dir="$cache_root/$kubernetes_version-$key"

if has_binaries "$cache_dir" && [[ -x "$cache_dir/kubectl" ]]; then
  echo "$cache_dir"
  exit 0
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9
if has_binaries "$cache_dir" && [[ -x "$cache_dir/kubectl" ]]; then
  echo "$cache_dir"
  exit 0
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

minor="${kubernetes_version#v1.}"
minor="${minor%%.*}"
version_package=k8s.io/component-base/version
client_version_package=k8s.io/client-go/pkg/version
ldflags=""
for package in "$version_package" "$client_version_package"; do
  ldflags+=" -X $package.gitVersion=$kubernetes_version -X $package.gitMajor=1"
  ldflags+=" -X $package.gitMinor=$minor -X $package.gitTreeState=clean"
done

staging="$(mktemp -d "$cache_root/.build-XXXXXX")"
trap 'rm -rf "$staging"' EXIT
started=$SECONDS
echo "building kube-apiserver, etcd and kubectl $kubernetes_version into $cache_dir (a cold build takes a while)" >&2
(
  cd "$module_dir"
  export CGO_ENABLED=0
  go build -trimpath -ldflags "$ldflags" -o "$staging/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  go build -trimpath -o "$staging/etcd" go.etcd.io/etcd/server/v3
  go build -trimpath -ldflags "$ldflags" -o "$staging/kubectl" k8s.io/kubernetes/cmd/kubectl
) >&2
rm -rf "$cache_dir"
mv "$staging" "$cache_dir"
trap - EXIT
echo "built in $((SECONDS - started)) s" >&2
echo "$cache_dir"
