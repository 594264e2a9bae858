#!/usr/bin/env bash
# Every Tandem app (apps/*/package.json with a bin) as an image from the one recipe,
# deploy/app.Dockerfile, tagged tandem/<app>:<version>, then all loaded into the kind
# cluster at once. With --node-image IMAGE the recipe's NODE_IMAGE build argument names the
# base (offline: node-base-image.sh's local Node 24 base).
#
# Usage: app-images.sh --cluster NAME --kind KIND [--node-image IMAGE]
#        prints the image names on stdout
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[app-images %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

cluster="" kind="" node_image=""
while (($#)); do
  case $1 in
    --cluster) cluster=$2; shift 2 ;;
    --kind) kind=$2; shift 2 ;;
    --node-image) node_image=$2; shift 2 ;;
    *) echo "app-images.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ -n $cluster && -n $kind ]] || { sed -n '2,9p' "$0" >&2; exit 2; }

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
# One load for all: their shared layers (base, packages) are saved and imported once.
t0=$(date +%s)
"$kind" load docker-image --name "$cluster" "${images[@]}" >&2
log "loaded ${#images[@]} images into $cluster in $(( $(date +%s) - t0 ))s"
printf '%s\n' "${images[@]}"
