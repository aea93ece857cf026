# syntax=docker/dockerfile:1
# Node 24 (LTS; `engines` and .nvmrc say the same major) on Debian 13 "trixie", the current stable,
# pinned by exact tag. Not by digest: there is no Docker engine or registry access where this file was
# written, so the digest could not be resolved or checked. Renovate (renovate.json) pins and refreshes
# it; by hand: `docker buildx imagetools inspect node:24.21.0-trixie-slim`, then
# NODE_IMAGE=node:24.21.0-trixie-slim@sha256:<digest>.
ARG NODE_IMAGE=node:24.21.0-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies (the compiler) are needed to build. --ignore-scripts: the embedded PostgreSQL
# binaries and the `node` package's binary are not needed here (the image's own Node 24 runs).
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY config ./config
# bench/, client/ and test/ are not copied (and .dockerignore keeps them out of the context).
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only: no embedded PostgreSQL (a dev dependency), no bench tools.
RUN --mount=type=cache,target=/root/.npm,sharing=locked \
    npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM ${NODE_IMAGE} AS runtime
ARG VERSION=0.1.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="enrollment-service" \
      org.opencontainers.image.description="Partner-facing banking enrollment service (users, accounts, purses, cards, profiles, ITIN)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="UNLICENSED" \
      org.opencontainers.image.base.name="${NODE_IMAGE}"
# METRICS_PORT: /metrics on its own listener (CONTRACT section 12); nothing else defaults it.
ENV NODE_ENV=production APP_MODE=production HOST=0.0.0.0 PORT=3000 METRICS_PORT=9464 DATA_DIR=/var/lib/enrollment-service
WORKDIR /app
# The code belongs to root and is read-only to the app user (files 0644, folders 0755); the one folder
# it may write is DATA_DIR (a sandbox's generated keys; production reads SERVICE_KEYS).
RUN groupadd --system app && useradd --system --gid app --home /nonexistent --no-create-home app \
    && mkdir -p /var/lib/enrollment-service && chown app:app /var/lib/enrollment-service
COPY --from=deps --chmod=u=rwX,go=rX /app/node_modules ./node_modules
COPY --from=build --chmod=u=rwX,go=rX /app/dist/src ./dist/src
COPY --from=build --chmod=u=rwX,go=rX /app/config ./config
COPY --chmod=0644 package.json ./package.json
USER app
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Production needs DATABASE_URL, SERVICE_CONFIG, SERVICE_KEYS, an https PUBLIC_URL and OFAC_LIST_DIR;
# without one it exits 1 with one line naming every gap (README, Configuration). The image has no
# embedded PostgreSQL: APP_MODE=sandbox needs DATABASE_URL too.
# main.js's first import starts OpenTelemetry before anything requires pg, when
# OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations-observability.md); without it, it loads nothing.
# Stack traces point into src/*.ts through the source maps the build writes beside dist/src.
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
