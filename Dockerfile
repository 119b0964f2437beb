# syntax=docker/dockerfile:1
# Multi-arch: `make image` (docker buildx, linux/amd64 and linux/arm64).
# The build stage runs once on the builder's own platform and cross-compiles
# both release binaries with `make dist` (no emulation); each target
# platform's final stage copies its own.
FROM --platform=$BUILDPLATFORM node:22-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && touch node_modules/.installed
COPY . .
# .git is not in the build context: the stamp comes in as build arguments
# (`make image` passes git's), and VERSION must match package.json.
ARG VERSION=""
ARG REVISION=unknown
ARG SOURCE_DATE_EPOCH=""
RUN test -z "${VERSION}" || test "${VERSION}" = "$(node -p 'require("./package.json").version')"
RUN make dist REVISION="${REVISION}" SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH}"
# Docker's architecture names onto Bun's target names.
RUN mkdir -p /out/amd64 /out/arm64 \
 && cp dist/cocoon-webhook-linux-x64 /out/amd64/cocoon-webhook \
 && cp dist/cocoon-webhook-linux-arm64 /out/arm64/cocoon-webhook

# The binaries need only glibc (libc, libpthread, libdl, libm; no libstdc++),
# so distroless/base is enough; static would lack glibc.
FROM gcr.io/distroless/base-debian12:nonroot
ARG TARGETARCH
ARG VERSION=""
ARG REVISION=unknown
ARG BUILD_TIME=unknown
LABEL org.opencontainers.image.title="cocoon-webhook" \
      org.opencontainers.image.description="Kubernetes admission webhook for the cocoonstack VM platform" \
      org.opencontainers.image.source="https://github.com/cocoonstack/cocoon-webhook" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${BUILD_TIME}"
COPY --from=build /out/${TARGETARCH}/cocoon-webhook /cocoon-webhook
USER 65532:65532
EXPOSE 8443 9090
ENTRYPOINT ["/cocoon-webhook"]
CMD ["serve"]
