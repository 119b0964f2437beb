#!/usr/bin/env bash
# Makes sure the Debian packages `make test` needs are installed, installing
# the missing ones with apt-get (as root, or through passwordless sudo). A
# machine that cannot install them fails here, naming them: a check that
# needs them must never be skipped and pass.
#
#   scripts/debian-packages.sh PACKAGE=FILE...
#
# FILE is a path the package installs; the package counts as present when the
# file exists, so the script also works where the tool came another way.
set -euo pipefail

missing=()
for pair in "$@"; do
  package="${pair%%=*}"
  file="${pair#*=}"
  [[ -e "$file" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  as_root=(none)
fi
if [[ ${as_root[0]:-} == none ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "missing Debian packages: ${missing[*]}; install them (apt-get install ${missing[*]}) and rerun" >&2
  exit 1
fi

echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq >&2
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
for pair in "$@"; do
  if [[ ! -e "${pair#*=}" ]]; then
    echo "${pair%%=*} is installed but ${pair#*=} is still missing" >&2
    exit 1
  fi
done
