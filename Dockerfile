# syntax=docker/dockerfile:1
# Build: the bun toolchain comes from the pinned npm package (package-lock.json),
# so the build stage only needs Node.js, npm and make.
FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && touch node_modules/.installed
COPY . .
# .git is not in the build context; pass the revision in (make passes git's).
ARG REVISION=unknown
RUN make build REVISION="${REVISION}" && ./dist/cocoon-webhook version

# The compiled binary needs only glibc (ldd: libc, libpthread, libdl, libm;
# no libstdc++), so distroless/base is enough; static would lack glibc.
FROM gcr.io/distroless/base-debian12:nonroot
COPY --from=build /src/dist/cocoon-webhook /cocoon-webhook
USER 65532:65532
EXPOSE 8443 9090
ENTRYPOINT ["/cocoon-webhook"]
CMD ["serve"]
