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
# Release binaries: Bun's target names; the image maps Docker's TARGETARCH onto them.
DIST_TARGETS := linux-x64 linux-arm64
DIST_DIR := dist
COMPILE := $(BUN) build src/main.ts --compile --bytecode --format=esm --minify --sourcemap \
  --define 'BUILD_VERSION="$(VERSION)"' \
  --define 'BUILD_REVISION="$(REVISION)"' \
  --define 'BUILD_TIME="$(BUILD_TIME)"'
IMAGE := ghcr.io/cocoonstack/cocoon-webhook
IMAGE_TAG := $(VERSION)
PLATFORMS := linux/amd64,linux/arm64
# --push for a registry; --load puts a single-platform image into the local engine.
IMAGE_OUTPUT := --push

.PHONY: help deps run test typecheck lint lint-workflows unused unit build e2e dist dist-test image \
  bench chaos kind-e2e generate clean

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

## everything CI runs: typecheck, lint, workflows, unused exports, unit, build, e2e, dist-test
test: deps typecheck lint lint-workflows unused unit build e2e dist-test

## tsc --noEmit, strict
typecheck: deps
	$(BIN)/tsc --noEmit

## biome check; a warning fails too
lint: deps
	$(BIN)/biome check --error-on-warnings .

# Entry points and the two deliberate exceptions are in knip.json.
## knip: no unused file, export, type or dependency
unused: deps
	$(BIN)/knip

# The workflows against the GitHub Actions schema.
## the GitHub workflows against the GitHub Actions schema
lint-workflows: deps
	for workflow in .github/workflows/*.yml; do $(BIN)/action-validator "$$workflow"; done

## unit and property tests (no binary needed)
unit: deps
	$(BUN) test --path-ignore-patterns='test/e2e/**' --path-ignore-patterns='test/chaos/**' \
	  --path-ignore-patterns='test/release/dist.test.ts'

## compile dist/cocoon-webhook for this machine
build: deps
	$(COMPILE) --outfile dist/cocoon-webhook

# Release binaries $(DIST_DIR)/cocoon-webhook-<target> and their sha256sum files.
# The embedded runtimes are Bun's npm packages, pinned with their integrity
# in package-lock.json (scripts/bun-runtime.ts), so only the npm registry is needed.
## release binaries for linux-x64 and linux-arm64 with .sha256 files
dist: deps
	for target in $(DIST_TARGETS); do \
	  runtime="$$($(BUN) scripts/bun-runtime.ts "$$target")"; \
	  $(COMPILE) --target="bun-$$target" --compile-executable-path="$$runtime" \
	    --outfile "$(DIST_DIR)/cocoon-webhook-$$target"; \
	  (cd "$(DIST_DIR)" && sha256sum "cocoon-webhook-$$target" > "cocoon-webhook-$$target.sha256"); \
	done

# The release binaries run (arm64 under qemu-aarch64 when installed, a visible
# skip otherwise), carry the commit's stamp and rebuild to the same bytes.
## run the release binaries (arm64 under qemu when installed) and check they rebuild to the same bytes
dist-test: dist
	$(BUN) test --timeout 120000 test/release/dist.test.ts

## end-to-end tests: the compiled binary over TLS against the fake apiserver
e2e: build
	$(BUN) test test/e2e

# Not part of `make test`: timings are figures to read, never assertions.
## benchmark against a floor and a peer server (about 4 minutes; figures, not assertions)
bench: build
	$(BUN) bench/run.ts

## the long reliability suite (about 14 minutes; CHAOS_SOAK_SECONDS=30 for a quick pass)
chaos: build
	$(BUN) test --timeout 900000 test/chaos

# The image for $(PLATFORMS) with docker buildx; needs a container engine
# (not available on the development machines). The labels and the stamp
# come from the same values as `make dist`.
## multi-arch container image with docker buildx (needs a container engine)
image:
	docker buildx build --platform "$(PLATFORMS)" $(IMAGE_OUTPUT) \
	  --build-arg VERSION="$(VERSION)" \
	  --build-arg REVISION="$(REVISION)" \
	  --build-arg SOURCE_DATE_EPOCH="$(SOURCE_DATE_EPOCH)" \
	  --build-arg BUILD_TIME="$(BUILD_TIME)" \
	  --tag "$(IMAGE):$(IMAGE_TAG)" .

# Needs kind and a Docker engine (not available on the development machines).
## walkthrough on a real kind cluster (needs kind and Docker)
kind-e2e:
	scripts/kind-e2e.sh

# The webhook configurations, the RBAC role and the no-match-conditions component in
# manifests/ follow from the endpoint table (src/admission/endpoints.ts); `make unit`
# fails while a committed file differs from what this writes.
## write the manifests that follow from the endpoint table (webhooks, RBAC role)
generate: deps
	$(BUN) scripts/generate.ts

## remove build output, dev certificates and the install stamp
clean:
	rm -rf dist .dev node_modules/.installed
