# syntax=docker/dockerfile:1@sha256:ecfaec9ed6d810b56388c508f4121597bfbba70d41a6dfeee4d8cad5f295fc32
# Multi-arch: `make image` (docker buildx, linux/amd64 and linux/arm64).
# Reproducible: the frontend and both base images are pinned by digest
# (.github/dependabot.yml proposes updates, tag and digest together), the
# stamp comes from the commit, and `make image` sets SOURCE_DATE_EPOCH and
# rewrite-timestamp so image and layer times are the commit's, not the build's.
# The build stage runs once on the builder's own platform and cross-compiles
# both release binaries with `make dist` (no emulation); each target
# platform's final stage copies its own.
FROM --platform=$BUILDPLATFORM node:22-bookworm@sha256:363e1587494626837fa7f9a23bdb453d13b0ff3c67c705c2805cfc69c2d2fad7 AS build
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
FROM gcr.io/distroless/base-debian12:nonroot@sha256:7f0c72cd138b442ae0deeb69c08b1acf5525439ba251a49ad93c320a061567e5
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
