# The headless server (`npm run serve`) for running workers on one PostgreSQL (docs/deploy.md).
# Build: docker build -t chatapp-desk .   Run: see compose.yaml.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The library patches (patches/, applied by patch-package at postinstall; docs/baileys.md).
COPY patches ./patches
RUN npm ci
COPY . .
# The main bundle and the web UI (out/); then only what the server needs at run time.
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    CHATAPP_HOST=0.0.0.0 \
    CHATAPP_PORT=3210 \
    CHATAPP_DATA_DIR=/data
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/out ./out
COPY --from=build /app/scripts ./scripts
RUN mkdir -p /data /media && chown node:node /data /media && chmod 700 /data /media
USER node
VOLUME /data
EXPOSE 3210
# SIGTERM reaches node directly (no shell in between): the worker hands its leases over at once.
CMD ["node", "scripts/serve.mjs"]
