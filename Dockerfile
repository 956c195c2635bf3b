# syntax=docker/dockerfile:1
# hitl-relay: the TypeScript is compiled once (npm run build), and the image runs the compiled
# package (dist/, as npm would install it) on Node 20 as the unprivileged "node" user, with
# production dependencies only. The same image runs the demo HITL service:
# `node dist/src/demo/serve.js` (see docker-compose.yml).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /build
# better-sqlite3 installs a prebuilt binary; the toolchain is there for when none fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY platforms ./platforms
COPY templates ./templates
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    PORT=8787 \
    DATA_DIR=/data
WORKDIR /app
# The package as installed: package.json (ES modules), bin/, dist/ (with dist/templates).
# Without src/cli.ts beside it, bin/hitl-relay.js runs the compiled dist/src/cli.js.
COPY --from=build /build/package.json ./package.json
COPY --from=build /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
COPY bin ./bin
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
# No curl in the slim image: Node's own fetch asks /readyz, so a relay whose platform refused its
# token, or whose store is not writable, shows as unhealthy (/healthz would only say it runs).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/readyz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/hitl-relay.js", "serve"]
