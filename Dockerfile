# syntax=docker/dockerfile:1
#
# tracksync, production image. Build and run:
#   docker build -t tracksync .
#   docker run --rm -p 3000:3000 -v tracksync-data:/app/data --env-file .env tracksync
# The build stage runs the same npm commands as test/build/production-build.test.ts (which reads them from
# this file): npm ci, npm run build, npm prune; the runtime stage runs node dist/app/main.js (= npm start).

# --- build: install everything, compile, then drop what only the build needed ---
FROM node:24-bookworm-slim AS build
# better-sqlite3 is a native addon compiled by node-gyp when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# node-gyp builds against this image's own Node headers instead of downloading them.
ENV npm_config_nodedir=/usr/local
WORKDIR /app
# The whole context (see .dockerignore): postinstall generates the Prisma clients from prisma/schema.prisma
# with tools/db/generate.ts (scripts/db-generate.ts), so the sources must be there before the install.
COPY . .
RUN --mount=type=cache,target=/root/.npm npm ci
RUN npm run build
# --omit=optional as well: prisma (CLI) and typescript are optional peers of @prisma/client, so npm keeps
# them ("devOptional") on --omit=dev alone. No production dependency needs an optional one (pg-cloudflare
# is for Cloudflare Workers only).
RUN npm prune --omit=dev --omit=optional

# --- runtime: compiled app, production node_modules, migrations ---
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=file:/app/data/tracksync.db
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
# The SQLite default lives in /app/data (mount a volume there); the code itself stays read-only to the app.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# /healthz: the process serves HTTP (node's fetch: there is no curl in the slim image). A --role worker
# container serves no HTTP: run it with --no-healthcheck.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Applies pending migrations, then serves and works; split the roles with -e ROLE=web / -e ROLE=worker.
CMD ["node", "dist/app/main.js"]
