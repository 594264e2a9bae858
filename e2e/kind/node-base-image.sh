#!/usr/bin/env bash
# Offline mode's stand-in for node:24.x-bookworm-slim, the base deploy/app.Dockerfile
# takes as NODE_IMAGE: the Debian minbase image (debian-image.sh) plus this
# repository's Node 24 (node_modules/node/bin/node, from the npm `node` package) and
# npm (`npm pack npm@TANDEM_KIND_NPM_VERSION`, cached), with the image's `node` user.
# Rebuilt when the Node or npm version changes (labels on the image).
#
# Usage: node-base-image.sh     prints the image name on stdout
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# shellcheck source=../control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"

log() { printf '[node-base-image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

NODE_BIN=$ROOT/node_modules/node/bin/node
[[ -x $NODE_BIN ]] || { log "no $NODE_BIN: run npm ci first"; exit 1; }
node_version=$("$NODE_BIN" --version)
npm_version=$TANDEM_KIND_NPM_VERSION
# Tagged with the exact Node version, as the online base (node:<version>-bookworm-slim,
# deploy/app.Dockerfile) is pinned.
IMAGE=tandem/node:${node_version#v}-$TANDEM_KIND_DEBIAN_SUITE-local
# A host that reaches the npm registry through a TLS-inspecting proxy trusts that
# proxy's CA (/usr/local/share/ca-certificates); npm in the image must trust it too.
extra_ca=$(cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true)
want="$node_version npm-$npm_version"
[[ -z $extra_ca ]] || want+=" ca-$(printf '%s' "$extra_ca" | sha256sum | cut -c1-12)"

if [[ $(docker image inspect -f '{{index .Config.Labels "tandem.node-npm"}}' "$IMAGE" 2>/dev/null) == "$want" ]]; then
  log "present: $IMAGE ($want)"
  printf '%s\n' "$IMAGE"
  exit 0
fi

DEBIAN=$("$HERE/debian-image.sh")
npm_dir=$(tandem_kind_cache_root)/npm
npm_tgz=$npm_dir/npm-$npm_version.tgz
if [[ ! -s $npm_tgz ]]; then
  mkdir -p "$npm_dir"
  log "npm pack npm@$npm_version"
  (cd "$npm_dir" && npm pack --silent "npm@$npm_version" >/dev/null)
fi

ctx=$(mktemp -d "${TMPDIR:-/tmp}/tandem-node-base.XXXXXX")
trap 'rm -rf "$ctx"' EXIT
cp "$NODE_BIN" "$ctx/node"
cp "$npm_tgz" "$ctx/npm.tgz"
cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN
COPY node /usr/local/bin/node
ADD npm.tgz /usr/local/lib/node_modules/
RUN mv /usr/local/lib/node_modules/package /usr/local/lib/node_modules/npm \\
  && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
  && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
  && groupadd --gid 1000 node \\
  && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
  && node --version && npm --version
LABEL tandem.node-npm="$want"
CMD ["node"]
EOF
if [[ -n $extra_ca ]]; then
  printf '%s\n' "$extra_ca" >"$ctx/extra-ca.crt"
  printf '%s\n' 'COPY extra-ca.crt /usr/local/share/tandem/extra-ca.crt' \
    'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/tandem/extra-ca.crt' >>"$ctx/Dockerfile"
fi
log "building $IMAGE ($want)"
docker build -q -t "$IMAGE" "$ctx" >&2
printf '%s\n' "$IMAGE"
