#!/usr/bin/env bash
# Every Tandem app (apps/*/package.json with a bin) as an image from the one recipe,
# deploy/app.Dockerfile, tagged tandem/<app>:<version>. With --node-image IMAGE the
# recipe's NODE_IMAGE build argument names the base (offline: node-base-image.sh's local
# Node 24 base). run.sh loads them into the cluster, all in one `kind load`.
#
# Usage: app-images.sh [--node-image IMAGE]     prints the image names on stdout
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[app-images %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

node_image=""
while (($#)); do
  case $1 in
    --node-image) node_image=$2; shift 2 ;;
    *) echo "app-images.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

build_args=()
images=()
[[ -z $node_image ]] || build_args+=(--build-arg "NODE_IMAGE=$node_image")

# package.json fields without a second JSON tool: node is there (any version reads JSON).
field() { node -p "const p = require(process.argv[1]); $2" "$1"; }

for manifest in "$ROOT"/apps/*/package.json; do
  app=$(basename "$(dirname "$manifest")")
  version=$(field "$manifest" 'p.version')
  entry=$(field "$manifest" "Object.values(p.bin ?? {})[0] ?? ''")
  [[ -n $entry ]] || continue
  image=tandem/$app:$version
  log "building $image"
  t0=$(date +%s)
  docker build -q -f "$ROOT/deploy/app.Dockerfile" "${build_args[@]}" \
    --build-arg "APP=$app" --build-arg "ENTRY=${entry#./}" -t "$image" "$ROOT" >&2
  log "built $image in $(( $(date +%s) - t0 ))s"
  images+=("$image")
done
((${#images[@]})) || { log "no app with a bin in apps/*/package.json"; exit 1; }
printf '%s\n' "${images[@]}"
