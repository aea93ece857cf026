# syntax=docker/dockerfile:1
# Node 24 (LTS, supported until April 2028; Node 20 reached its end of life in April 2026), pinned by
# exact tag. Not pinned by digest: there is no Docker engine or registry access where this file was
# written, so the digest could not be resolved or checked. Pin it (node:24.21.0-bookworm-slim@sha256:…)
# when building: `docker buildx imagetools inspect node:24.21.0-bookworm-slim`.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Dev dependencies (the compiler) are needed to build; the embedded PostgreSQL binaries are a dev
# dependency whose install script is not needed here.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY config ./config
# bench/, client/ and test/ are not copied (and .dockerignore keeps them out of the context).
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only: no embedded PostgreSQL (a dev dependency), no bench tools.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
# Metrics on their own port, bound to 127.0.0.1 unless METRICS_HOST says otherwise (CONTRACT section 12).
ENV NODE_ENV=production APP_MODE=production HOST=0.0.0.0 PORT=3000 METRICS_PORT=9464
WORKDIR /app
RUN groupadd --system app && useradd --system --gid app --home /app app
COPY --from=deps --chown=app:app /app/node_modules ./node_modules
COPY --from=build --chown=app:app /app/dist/src ./dist/src
COPY --from=build --chown=app:app /app/config ./config
COPY --chown=app:app package.json ./package.json
USER app
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/health/ready').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Production needs DATABASE_URL, SERVICE_CONFIG, SERVICE_KEYS, an https PUBLIC_URL and OFAC_LIST_DIR;
# without one it exits 1 with one line naming every gap (README, Configuration). The image has no
# embedded PostgreSQL: APP_MODE=sandbox needs DATABASE_URL too.
CMD ["node", "dist/src/main.js"]
