# One image recipe for every Tandem app with an image (e2e/kind/app-images.sh lists them),
# tagged with the app's own version, e.g.
#   docker build -f deploy/app.Dockerfile --build-arg APP=recommender \
#     --build-arg ENTRY=bin/tandem-recommender.mjs --build-arg VERSION=0.1.0 \
#     -t tandem/recommender:0.1.0 .
# Built from the repository root: an app needs the workspace packages it imports. The
# image holds that app's built output, the built output of the workspace packages it
# depends on, their production dependencies and nothing else: no sources, specs, npm or
# other apps' dependencies (ADR 0020). Its CycloneDX SBOM is /app/sbom.cdx.json.
#
# NODE_IMAGE is the base of the install and of the runtime image, pinned to the Node
# version of the repository's own node_modules/node (package.json). Offline, e2e/kind
# builds a local base of that same version (e2e/kind/node-base-image.sh) and passes it.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# The install does not depend on APP, so building every app from one tree runs it once
# (the layer is shared); only the build and prune below are per app.
FROM ${NODE_IMAGE} AS deps
WORKDIR /workspace
COPY . .
# The base image already runs Node 24, so the npm `node` package's install step is skipped.
RUN npm ci --no-fund --no-audit --ignore-scripts

# The app and the workspace packages it needs are built (a layer of its own, so a change
# to the steps below does not rebuild).
FROM deps AS build
ARG APP
RUN npx nx run "${APP}:build" --outputStyle=static

# npm reinstalls only the app's production dependencies (from the cache the full install
# filled), and /image/<app> becomes the app as an installed package: its package.json,
# bin and dist at the root, node_modules as npm laid it out, each workspace package npm
# linked (node_modules/@tandem/*) replaced by a directory of its package.json and dist.
# TypeScript declarations and sources, source maps, build info and Markdown go, from the
# dependencies too (nothing loads them at runtime; about a third of node_modules);
# licence files stay. npm then writes the SBOM of that very tree (through links `npm sbom`
# would not see what the linked packages depend on; it names the root component after
# its directory). main.mjs links the app's bin: Node runs a linked main module from its
# real path, so the bin finds ../package.json and ../dist.
FROM build AS prune
ARG APP
ARG ENTRY
RUN npm ci --omit=dev --workspace "apps/${APP}" --ignore-scripts --prefer-offline --no-fund --no-audit \
  && if [ -n "$(ls -A "apps/${APP}/node_modules" 2>/dev/null | grep -vx .bin)" ]; then \
       echo "apps/${APP}/node_modules holds packages: the image layout has no place for them" >&2; exit 1; \
     fi \
  && copy_built() { \
       for part in package.json bin dist node_modules; do \
         if [ -e "$1/$part" ]; then cp -a "$1/$part" "$2/"; fi; \
       done; \
     } \
  && out="/image/${APP}" && mkdir -p "$out" \
  && rm -rf node_modules/.bin node_modules/.package-lock.json "node_modules/@tandem/${APP}" \
  && cp -a node_modules "$out/" && copy_built "apps/${APP}" "$out" && rm -rf "$out/node_modules/.bin" \
  && for link in node_modules/@tandem/*; do \
       rm "$out/$link" && mkdir "$out/$link" && copy_built "$(readlink -f "$link")" "$out/$link"; \
     done \
  && find "$out/dist" "$out/node_modules" -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \
       -o -name '*.map' -o -name '*.tsbuildinfo' -o -name '*.md' \) ! -iname 'licen[cs]e*' -delete \
  && (cd "$out" && npm sbom --sbom-format cyclonedx --sbom-type application --omit dev >/tmp/sbom.cdx.json) \
  && mv /tmp/sbom.cdx.json "$out/" \
  && ln -s "${ENTRY}" "$out/main.mjs"

# The base without its package managers (npm, npx, corepack, yarn) and C headers, which
# nothing runs at runtime: deleted here, then copied as one layer below, so the files are
# gone from the image, not only hidden under a later layer.
FROM ${NODE_IMAGE} AS runtime-base
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
    /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
    /usr/local/include/node /root/.npm \
  && node --version

FROM scratch
COPY --from=runtime-base / /
ARG APP
ARG VERSION
# The heap may grow to three quarters of the container's memory limit (ADR 0040). Node's
# own default is about half of it (560 MiB of the manifests' 1 GiB), and a recommender
# whose model outgrew that crashed with a heap out of memory while its container used
# 566 MiB of its 1 GiB. Without a limit the share is of the node's memory. A pod that sets
# NODE_OPTIONS replaces this.
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin NODE_ENV=production \
  NODE_OPTIONS=--max-old-space-size-percentage=75
WORKDIR /app
COPY --from=prune /image/${APP} /app
LABEL org.opencontainers.image.title="tandem-${APP}" \
  org.opencontainers.image.version="${VERSION}" \
  org.opencontainers.image.licenses="Apache-2.0" \
  tandem.sbom="/app/sbom.cdx.json"
# The node user of the base, by number, as the manifests' runAsUser: 1000.
USER 1000:1000
ENTRYPOINT ["node", "/app/main.mjs"]
