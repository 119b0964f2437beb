# Everything runs from the project's own node_modules: bun comes from the
# pinned npm package, so a machine with only Node.js and npm is enough.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
BIN := node_modules/.bin
BUN := $(BIN)/bun
VERSION := $(shell node -p "require('./package.json').version")
# The stamp describes the source, never the machine or the clock, so that
# rebuilding a commit gives the same binary: the full commit hash ("-dirty"
# when tracked files differ from it) and the commit time. Outside a git
# checkout (a container build context) pass REVISION and SOURCE_DATE_EPOCH.
ifeq ($(origin REVISION),undefined)
REVISION := $(shell git rev-parse HEAD 2>/dev/null | tr -d '\n' && \
  { git diff --quiet HEAD -- 2>/dev/null || printf -- -dirty; } || echo unknown)
endif
ifeq ($(origin SOURCE_DATE_EPOCH),undefined)
SOURCE_DATE_EPOCH := $(shell git show -s --format=%ct HEAD 2>/dev/null)
endif
BUILD_TIME := $(if $(SOURCE_DATE_EPOCH),$(shell node -p \
  "new Date($(SOURCE_DATE_EPOCH) * 1000).toISOString().replace('.000Z', 'Z')"),unknown)
DEV_CERTS := .dev/certs
# helm, kustomize and actionlint, built from the Go module in test/tools into a
# cache outside the work tree (the first build takes minutes, later ones none).
GO_TOOLS := scripts/go-build-cached.sh test/tools tools
# Debian packages the checks need, each with a file it installs; installed
# when missing (as root or with passwordless sudo), a failure otherwise.
SHELLCHECK_PACKAGE := shellcheck=/usr/bin/shellcheck
ARM64_PACKAGES := qemu-user=/usr/bin/qemu-aarch64 \
  libc6-arm64-cross=/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1
# Release binaries; the image maps Docker's TARGETARCH onto them. linux-x64 embeds
# Bun's baseline runtime (no AVX2 needed); `make bench` also builds linux-x64-avx2,
# the modern runtime, to compare (scripts/bun-runtime.ts).
DIST_TARGETS := linux-x64 linux-arm64
DIST_DIR := dist
# --splitting keeps the modules a command loads lazily (client-node and YAML for a KUBECONFIG,
# the validate command) in chunks of their own, evaluated only when imported: in one bundle their
# classes were created at every start (docs/performance.md#memory).
COMPILE := $(BUN) build src/main.ts --compile --bytecode --format=esm --splitting --minify --sourcemap \
  --define 'BUILD_VERSION="$(VERSION)"' \
  --define 'BUILD_REVISION="$(REVISION)"' \
  --define 'BUILD_TIME="$(BUILD_TIME)"'
IMAGE := ghcr.io/cocoonstack/cocoon-webhook
IMAGE_TAG := $(VERSION)
PLATFORMS := linux/amd64,linux/arm64
# A registry push (type=docker with one platform puts it into the local engine).
# rewrite-timestamp sets every file in the layers to SOURCE_DATE_EPOCH.
IMAGE_OUTPUT := --output type=registry,rewrite-timestamp=true
# Where buildx writes the pushed image's digest (containerimage.digest).
IMAGE_METADATA := dist/image-metadata.json

.PHONY: help deps tools run test typecheck lint lint-shell lint-workflows lint-chart chart unused \
  alerts unit build e2e controlplane dist dist-test image bench chaos kind-e2e generate clean

.DEFAULT_GOAL := help

## list every target with what it does
help:
	@awk '/^## / { description = substr($$0, 4); next } \
	  /^[a-z][a-z0-9-]*:/ && description != "" { sub(/:.*/, ""); printf "  %-15s %s\n", $$0, description } \
	  { description = "" }' $(MAKEFILE_LIST)

## install the pinned npm dependencies (npm ci) when package-lock.json changed
deps: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

## serve the webhook locally with a self-signed dev certificate, no cluster needed
run: deps $(DEV_CERTS)/tls.crt
	TLS_CERT=$(DEV_CERTS)/tls.crt TLS_KEY=$(DEV_CERTS)/tls.key $(BUN) src/main.ts serve

$(DEV_CERTS)/tls.crt:
	scripts/dev-cert.sh $(DEV_CERTS)

## everything CI runs: checks, unit, build, e2e, the real control plane, dist-test
test: deps typecheck lint lint-shell lint-workflows lint-chart unused alerts unit build e2e \
  controlplane dist-test

## build helm, kustomize and actionlint from test/tools into the cache; print its folder
tools:
	@$(GO_TOOLS)

## tsc --noEmit, strict
typecheck: deps
	$(BIN)/tsc --noEmit

## biome check; a warning fails too
lint: deps
	$(BIN)/biome check --error-on-warnings .

# Entry points and the two deliberate exceptions are in knip.json.
## knip: no unused file, export, type or dependency; none used only by tests or the bench
unused: deps
	$(BIN)/knip
	$(BIN)/knip --production

## shellcheck on every shell script (installs Debian's shellcheck when missing)
lint-shell:
	scripts/debian-packages.sh $(SHELLCHECK_PACKAGE)
	shellcheck scripts/*.sh .ci/run

# actionlint checks keys, permissions, expressions and, through shellcheck, every
# run: script. It knows action inputs by tag only, so with SHA pins `make unit`
# checks them (.github/action-inputs.yaml, test/release/action-inputs.test.ts).
## the GitHub workflows with actionlint and shellcheck
lint-workflows:
	scripts/debian-packages.sh $(SHELLCHECK_PACKAGE)
	tools="$$($(GO_TOOLS))"; "$$tools/actionlint" -shellcheck "$$(command -v shellcheck)"

# The templates, values.yaml and values.schema.json are kept by hand; test/chart holds them to
# manifests/ and the endpoint table.
## write Chart.yaml's version fields (package.json, CHANGELOG) and the chart README's values table
chart: deps
	$(BUN) scripts/chart.ts

## helm lint, and the chart against manifests/ and the endpoint table
lint-chart: deps
	tools="$$($(GO_TOOLS))"; COCOON_TOOLS_DIR="$$tools" $(BUN) test --timeout 60000 test/chart

# promtool comes from its own Go module (test/tools/promtool), built on first use into
# the cache like the tools above (scripts/tools.ts).
## the alerts with promtool: check rules, and a firing and a quiet unit test per alert
alerts: deps
	$(BUN) test --timeout 120000 test/alerts

## unit and property tests (no binary needed)
unit: deps
	$(BUN) test --path-ignore-patterns='test/e2e/**' --path-ignore-patterns='test/chaos/**' \
	  --path-ignore-patterns='test/chart/**' --path-ignore-patterns='test/alerts/**' \
	  --path-ignore-patterns='test/release/dist*.test.ts' \
	  --path-ignore-patterns='test/controlplane/**'

## compile dist/cocoon-webhook for this machine
build: deps
	$(COMPILE) --outfile dist/cocoon-webhook

# Release binaries $(DIST_DIR)/cocoon-webhook-<target>, their sha256sum files and
# SPDX SBOMs (<binary>.spdx.json: the packages the build's metafile says the
# bundle holds, and the embedded runtime; scripts/sbom.ts).
# The embedded runtimes are Bun's npm packages, pinned with their integrity
# in package-lock.json (scripts/bun-runtime.ts), so only the npm registry is needed.
## release binaries for linux-x64 (no AVX2 needed) and linux-arm64 with .sha256 files and SBOMs
dist: deps
	for target in $(DIST_TARGETS); do \
	  runtime="$$($(BUN) scripts/bun-runtime.ts "$$target")"; \
	  bun_target="$$($(BUN) scripts/bun-runtime.ts "$$target" --bun-target)"; \
	  $(COMPILE) --target="$$bun_target" --compile-executable-path="$$runtime" \
	    --metafile="$(DIST_DIR)/cocoon-webhook-$$target.metafile.json" \
	    --outfile "$(DIST_DIR)/cocoon-webhook-$$target"; \
	  BUILD_TIME="$(BUILD_TIME)" $(BUN) scripts/sbom.ts "$$target" "$(DIST_DIR)/cocoon-webhook-$$target" \
	    "$(DIST_DIR)/cocoon-webhook-$$target.metafile.json"; \
	  (cd "$(DIST_DIR)" && sha256sum "cocoon-webhook-$$target" > "cocoon-webhook-$$target.sha256"); \
	done

# The release binaries run (arm64 under qemu-aarch64, installed when missing:
# an architecture that was not run fails, it is never skipped), carry the
# commit's stamp and rebuild to the same bytes.
## run the release binaries (arm64 under qemu) and check they rebuild to the same bytes
dist-test: dist
	scripts/debian-packages.sh $(ARM64_PACKAGES)
	$(BUN) test --timeout 120000 test/release/dist.test.ts test/release/dist-sbom.test.ts

## end-to-end tests: the compiled binary over TLS against the fake apiserver
e2e: build
	$(BUN) test test/e2e

# kube-apiserver, etcd and kubectl come from KUBEBUILDER_ASSETS or are built
# from test/controlplane/go.mod into a cache outside the tree (a cold build
# takes a while, later runs reuse it). Without Go and without
# KUBEBUILDER_ASSETS the tier cannot run: it says so loudly, and fails when
# REQUIRE_CONTROLPLANE is set (CI sets it, so CI never skips it).
## the real-control-plane tier: our manifests in a real kube-apiserver, scenarios through it
controlplane: build
	@status=0; scripts/controlplane.sh >/dev/null || status=$$?; \
	if [ "$$status" -eq 3 ]; then \
	  echo "=================================================================="; \
	  echo "THE REAL-CONTROL-PLANE TIER DID NOT RUN: no Go toolchain and no"; \
	  echo "KUBEBUILDER_ASSETS. Install Go (1.26 or newer), or point"; \
	  echo "KUBEBUILDER_ASSETS at a folder with kube-apiserver and etcd"; \
	  echo "(setup-envtest), and run make controlplane."; \
	  echo "=================================================================="; \
	  if [ -n "$${REQUIRE_CONTROLPLANE:-}" ]; then exit 1; fi; \
	  exit 0; \
	fi; \
	if [ "$$status" -ne 0 ]; then exit "$$status"; fi; \
	$(BUN) test --preload ./test/controlplane/setup.ts --timeout 60000 test/controlplane

# Not part of `make test`: timings are figures to read, never assertions.
## benchmark against a floor and a peer, then the two x64 runtimes (about 14 minutes; figures)
bench: build
	$(BUN) bench/run.ts
	$(MAKE) --no-print-directory dist DIST_TARGETS="linux-x64 linux-x64-avx2"
	$(BUN) bench/runtimes.ts

## the long reliability suite (about 14 minutes; CHAOS_SOAK_SECONDS=30 for a quick pass)
chaos: build
	$(BUN) test --timeout 900000 test/chaos

# The image for $(PLATFORMS) with docker buildx; needs a container engine
# (not available on the development machines). The labels and the stamp
# come from the same values as `make dist`. buildx's own provenance and SBOM
# attestations are off: they carry the build's time, so the same commit would
# give another index digest; the release workflow attests instead.
## multi-arch container image with docker buildx (needs a container engine)
image:
	mkdir -p "$(dir $(IMAGE_METADATA))"
	SOURCE_DATE_EPOCH="$(SOURCE_DATE_EPOCH)" docker buildx build --platform "$(PLATFORMS)" $(IMAGE_OUTPUT) \
	  --provenance=false --sbom=false --metadata-file "$(IMAGE_METADATA)" \
	  --build-arg VERSION="$(VERSION)" \
	  --build-arg REVISION="$(REVISION)" \
	  --build-arg SOURCE_DATE_EPOCH="$(SOURCE_DATE_EPOCH)" \
	  --build-arg BUILD_TIME="$(BUILD_TIME)" \
	  --tag "$(IMAGE):$(IMAGE_TAG)" .

# Needs kind and a Docker engine (not available on the development machines).
## walkthrough on a real kind cluster (needs kind and Docker)
kind-e2e:
	scripts/kind-e2e.sh

# The webhook configurations, the RBAC role, the no-match-conditions component and the
# Deployment's ENFORCEMENT value in manifests/, and the endpoint lists the docs mark with
# <!-- generated: NAME -->, follow from the endpoint table (src/endpoints/index.ts);
# `make unit` fails while a committed file differs from what this writes. The chart's templates
# are kept by hand: `make lint-chart` checks them against the same table.
## write what follows from the endpoint table (webhooks, RBAC role, ENFORCEMENT, doc lists)
generate: deps
	$(BUN) scripts/generate.ts

## remove build output, dev certificates and the install stamp
clean:
	rm -rf dist .dev node_modules/.installed
