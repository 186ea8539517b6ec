# edgeops: build the TypeScript once, run the compiled JavaScript with production dependencies only.
# Configure it at run time with the environment variables of the README's Configuration table
# (docker run --env-file .env, from .env.example); no secret is baked into the image.

# Node 24 is the active LTS line (20 reached end of life in April 2026); trixie is Debian's stable
# release, so the slim base keeps getting security updates for the life of this LTS.

# --- build: dev dependencies and tsc, producing dist/ ---
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# --- runtime: production dependencies and dist/ only ---
FROM node:24-trixie-slim AS runtime
# Node 22+ keeps the compiled code of the modules it loads here, so a restarted container starts
# faster; /tmp is writable by the process user. Older Node ignores it.
# glibc adds malloc arenas, up to eight per core, as threads allocate at the same time (the
# report threads, the thread receiving Slack's requests, libuv's pool); with two in all, the
# 200 MB Shield export peaked at 135-147 MB instead of 149-163 MB, at the same speed
# (bench/export.ts, which runs with this environment: bench/child.ts, IMAGE_ENV).
# --expose-gc lets the event loop collect a long body's spent socket buffers every 8 MiB instead of
# every 32 MB (src/reports/young-collection.ts): the same export then peaks at 135-140 MB instead
# of 146-154. A NODE_OPTIONS given at `docker run` replaces this one: keep --expose-gc in it.
ENV NODE_ENV=production NODE_COMPILE_CACHE=/tmp/edgeops-compile-cache MALLOC_ARENA_MAX=2 \
    NODE_OPTIONS=--expose-gc
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The code and dependencies stay root-owned (read-only to the process); only the state database
# (file:data/edgeops.db) and the console's files (out/) are written, by the image's unprivileged
# `node` user. Numeric, so that Kubernetes' runAsNonRoot can verify it.
RUN mkdir -p /app/data /app/out && chown 1000:1000 /app/data /app/out
USER 1000:1000
# PORT (Slack's events in HTTP mode, /healthz) and METRICS_PORT (/healthz, /readyz, /metrics).
EXPOSE 3000 9090
VOLUME /app/data
# The slim image has no curl; Node's own fetch does the probe, bounded below Docker's timeout. It
# asks PORT, which answers /healthz in both Slack modes: in HTTP mode through the thread that
# receives Slack's requests, so a probe that passes has reached what Slack reaches.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
