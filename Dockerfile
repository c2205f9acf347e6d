# syntax=docker/dockerfile:1
# The server's image (docs/production.md): docker build -t process-notifications .
# Three stages: the build needs the dev dependencies (TypeScript, Vite); the image holds only the
# production dependencies, the compiled server and the console, and runs as a user without rights.

# Production dependencies only. better-sqlite3 is a native module: built here for this Node when
# no prebuilt binary can be downloaded, so the compilers stay in this stage.
# Node 24, a supported major (docs/development.md#node-versions). better-sqlite3 12 compiled against
# Node 24.19's headers or later aborts the process (ObjectWrap's cleanup hook, nodejs/node#65446):
# npm_config_target makes a compile use 24.18.1's (same ABI, so the binary runs on every 24.x), and
# a downloaded prebuilt binary be the one for that ABI.
FROM node:24-slim AS deps
WORKDIR /app
ENV npm_config_target=24.18.1
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY libs/process-notifications-contract/package.json libs/process-notifications-contract/
COPY libs/process-notifications/package.json libs/process-notifications/
COPY libs/process-notifications-client/package.json libs/process-notifications-client/
COPY libs/pn-supervise/package.json libs/pn-supervise/
RUN npm ci --omit=dev

# The build: every dependency, then `npm run build` (server, libraries, console).
FROM deps AS build
RUN npm ci
COPY . .
RUN npm run build

FROM node:24-slim
WORKDIR /app
# package.json files and the production node_modules (a workspace's own too, if npm made one).
COPY --from=deps /app ./
COPY --from=build /app/libs/process-notifications-contract/dist libs/process-notifications-contract/dist
COPY --from=build /app/libs/process-notifications/dist libs/process-notifications/dist
COPY --from=build /app/libs/process-notifications-client/dist libs/process-notifications-client/dist
COPY --from=build /app/libs/pn-supervise/dist libs/pn-supervise/dist
COPY --from=build /app/dist/src dist/src
COPY --from=build /app/dist/console dist/console
# A SQLite database, when PN_DATABASE_URL names no other, lives in the volume.
RUN mkdir -p /var/lib/process-notifications && chown node:node /var/lib/process-notifications
VOLUME /var/lib/process-notifications
ENV PORT=3000 \
    PN_DATABASE_URL=sqlite:/var/lib/process-notifications/process-notifications.db
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm run start:prod` runs; node itself is PID 1 and handles SIGTERM (graceful shutdown).
CMD ["node", "--no-allocation-site-pretenuring", "dist/src/main.js"]
