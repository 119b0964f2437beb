#!/usr/bin/env bash
# Self-signed certificate for `make run`: localhost and 127.0.0.1, 30 days.
set -euo pipefail
dir=${1:-.dev/certs}
mkdir -p "$dir"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$dir/tls.key" -out "$dir/tls.crt" -days 30 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2>/dev/null
echo "development certificate written to $dir/tls.crt"
