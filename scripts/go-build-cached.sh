#!/usr/bin/env bash
# Builds the `tool` packages of a Go module into a cache outside the work tree
# and prints that folder. The cache key is the module's go.mod and go.sum with
# the Go version and architecture, so a warm run only checks that the files are
# there, and a bump of any pinned version (or of Go) builds afresh.
#
#   scripts/go-build-cached.sh MODULE_DIR CACHE_NAME
#
# MODULE_DIR   a Go module whose go.mod lists the binaries in a `tool` block
# CACHE_NAME   the folder under ${XDG_CACHE_HOME:-~/.cache}/cocoon-webhook
#              (GO_BUILD_CACHE_ROOT overrides that parent folder)
# GO_LDFLAGS   optional -ldflags for every binary (-X of a variable a package
#              does not have is ignored, so one string can serve several)
#
# GO_BUILD_TAGS optional -tags for every binary (promtool's remove_all_sd leaves
#              out the service-discovery plugins, and their cloud SDKs, it never uses here)
#
# GO_BINARY_NAMES optional "PACKAGE=NAME ..." for binaries not to be named after
#              their package (go.etcd.io/etcd/server/v3=etcd)
#
# Otherwise each binary is named after the last element of its package path
# that is not a major-version suffix (helm.sh/helm/v4/cmd/helm -> helm).
# Concurrent callers wait on a lock and build once. Exit 3 when no Go
# toolchain is on PATH: the caller fails loudly, naming what it could not run.
# Build output goes to stderr; stdout carries only the folder.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 MODULE_DIR CACHE_NAME" >&2
  exit 2
fi
module_dir="$(cd "$1" && pwd)"
cache_name=$2

if ! command -v go >/dev/null 2>&1; then
  echo "no Go toolchain on PATH: cannot build the tools of $module_dir (install Go, see its go.mod for the version)" >&2
  exit 3
fi

# The `tool` lines of go.mod: `tool PATH` or a `tool ( ... )` block.
mapfile -t packages < <(awk '/^tool \($/ { inside = 1; next } inside && /^\)/ { inside = 0 }
  inside && NF { print $1 } /^tool [^(]/ { print $2 }' "$module_dir/go.mod")
if [[ ${#packages[@]} -eq 0 ]]; then
  echo "$module_dir/go.mod lists no tool" >&2
  exit 1
fi

binary_name() {
  local path=$1 name pair
  for pair in ${GO_BINARY_NAMES:-}; do
    if [[ ${pair%%=*} == "$path" ]]; then
      echo "${pair#*=}"
      return
    fi
  done
  name="${path##*/}"
  if [[ $name =~ ^v[0-9]+$ ]]; then
    path="${path%/*}"
    name="${path##*/}"
  fi
  echo "$name"
}

has_binaries() {
  local dir=$1 package
  for package in "${packages[@]}"; do
    [[ -x "$dir/$(binary_name "$package")" ]] || return 1
  done
}

# Build tags join the key only when given, so the keys of builds without them stay as they were.
build_options() {
  printf '%s\n%s' "${GO_LDFLAGS:-}" "${GO_BINARY_NAMES:-}"
  if [[ -n ${GO_BUILD_TAGS:-} ]]; then
    printf '\ntags %s' "$GO_BUILD_TAGS"
  fi
}
key="$(cat "$module_dir/go.mod" "$module_dir/go.sum" <(go env GOVERSION GOARCH) <(build_options) |
  sha256sum | cut -c1-16)"
cache_root="${GO_BUILD_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/cocoon-webhook}/$cache_name"
cache_dir="$cache_root/$key"

if has_binaries "$cache_dir"; then
  echo "$cache_dir"
  exit 0
fi

mkdir -p "$cache_root"
exec 9>"$cache_root/.lock"
flock 9
if has_binaries "$cache_dir"; then
  echo "$cache_dir"
  exit 0
fi

staging="$(mktemp -d "$cache_root/.build-XXXXXX")"
chmod 755 "$staging"
trap 'rm -rf "$staging"' EXIT
started=$SECONDS
echo "building ${packages[*]} from $module_dir into $cache_dir (a cold build takes minutes)" >&2
(
  cd "$module_dir"
  export CGO_ENABLED=0 GOFLAGS=-mod=readonly
  for package in "${packages[@]}"; do
    go build -trimpath -tags "${GO_BUILD_TAGS:-}" -ldflags "${GO_LDFLAGS:-}" -o "$staging/$(binary_name "$package")" "$package"
  done
) >&2
rm -rf "$cache_dir"
mv "$staging" "$cache_dir"
trap - EXIT
echo "built in $((SECONDS - started)) s" >&2
echo "$cache_dir"
