# One image recipe for every Tandem app, tagged with the app's own version, e.g.
#   docker build -f deploy/app.Dockerfile --build-arg APP=recommender \
#     --build-arg ENTRY=bin/tandem-recommender.mjs \
#     -t tandem/recommender:$(node -p "require('./apps/recommender/package.json').version") .
# Built from the repository root: an app needs the workspace packages it imports.
# e2e/kind/app-images.sh builds every app this way, reading ENTRY from the package.json bin.
ARG NODE_IMAGE=node:24-bookworm-slim

# NODE_IMAGE is the base of the install and of the runtime image: offline, e2e/kind
# builds a local Node 24 base (e2e/kind/node-base-image.sh) and passes it here.

# The install does not depend on APP, so building every app from one tree runs it once
# (the layer is shared); only the build and prune below are per app.
FROM ${NODE_IMAGE} AS deps
WORKDIR /workspace
COPY . .
# The base image already runs Node 24, so the npm `node` package's install step is skipped.
RUN npm ci --no-fund --no-audit --ignore-scripts

FROM deps AS build
ARG APP
RUN npx nx run "${APP}:build" --outputStyle=static \
  && npm prune --omit=dev --no-fund --no-audit

FROM ${NODE_IMAGE}
ARG APP
ARG ENTRY
ENV NODE_ENV=production ENTRY_POINT=/app/apps/${APP}/${ENTRY}
WORKDIR /app
COPY --from=build /workspace/node_modules ./node_modules
COPY --from=build /workspace/packages ./packages
COPY --from=build /workspace/apps/${APP}/package.json ./apps/${APP}/
COPY --from=build /workspace/apps/${APP}/bin ./apps/${APP}/bin
COPY --from=build /workspace/apps/${APP}/dist ./apps/${APP}/dist
USER node
# A shell form would not forward SIGTERM; exec keeps node as PID 1's only child.
ENTRYPOINT ["/bin/sh", "-c", "exec node \"$ENTRY_POINT\" \"$@\"", "--"]
