# Everything runs from the project's own node_modules: bun comes from the
# pinned npm package, so a machine with only Node.js and npm is enough.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
BIN := node_modules/.bin
BUN := $(BIN)/bun
VERSION := $(shell node -p "require('./package.json').version")
REVISION := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
BUILD_TIME := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
DEV_CERTS := .dev/certs

.PHONY: deps run test typecheck lint unit build e2e bench chaos kind-e2e clean

deps: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

run: deps $(DEV_CERTS)/tls.crt
	TLS_CERT=$(DEV_CERTS)/tls.crt TLS_KEY=$(DEV_CERTS)/tls.key $(BUN) src/main.ts serve

$(DEV_CERTS)/tls.crt:
	scripts/dev-cert.sh $(DEV_CERTS)

test: deps typecheck lint unit build e2e

typecheck: deps
	$(BIN)/tsc --noEmit

lint: deps
	$(BIN)/biome check .

unit: deps
	$(BUN) test --path-ignore-patterns='test/e2e/**' --path-ignore-patterns='test/chaos/**'

build: deps
	$(BUN) build src/main.ts --compile --bytecode --format=esm --minify --sourcemap \
	  --define 'BUILD_VERSION="$(VERSION)"' \
	  --define 'BUILD_REVISION="$(REVISION)"' \
	  --define 'BUILD_TIME="$(BUILD_TIME)"' \
	  --outfile dist/cocoon-webhook

e2e: build
	$(BUN) test test/e2e

# Not part of `make test`: timings are figures to read, never assertions.
bench: build
	$(BUN) bench/run.ts

chaos: build
	$(BUN) test --timeout 900000 test/chaos

# Needs kind and a Docker engine (not available on the development machines).
kind-e2e:
	scripts/kind-e2e.sh

clean:
	rm -rf dist .dev node_modules/.installed
