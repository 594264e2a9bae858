#!/usr/bin/env bash
# Every Tandem app that is deployed (apps/<app> with a bin and a deploy/<app>/ directory;
# the CLI has none) as an image from the one recipe, deploy/app.Dockerfile, tagged
# tandem/<app>:<version of apps/<app>/package.json>. With --node-image IMAGE the recipe's
# NODE_IMAGE build argument names the base (offline: node-base-image.sh's local Node
# base). run.sh loads them into the cluster, all in one `kind load`.
#
# After each build the image is checked (check_image), and the build fails if it has
# regressed: no npm, npx, corepack or yarn; no sources, specs or tsconfig of the
# workspace; no other app; a numeric non-root user; the SBOM its label names; and the
# app's bin starts with every module resolved. Each SBOM is also copied out, to
# TANDEM_SBOM_DIR (default: the kind cache's sbom/), for CI to keep as an artifact.
#
# Usage: app-images.sh [--node-image IMAGE]     prints the image names on stdout
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../control-plane/common.sh
. "$ROOT/e2e/control-plane/common.sh"
log() { printf '[app-images %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

node_image=""
while (($#)); do
  case $1 in
    --node-image) node_image=$2; shift 2 ;;
    *) echo "app-images.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

SBOM_DIR=${TANDEM_SBOM_DIR:-$(tandem_kind_cache_root)/sbom}
mkdir -p "$SBOM_DIR"
build_args=()
images=()
[[ -z $node_image ]] || build_args+=(--build-arg "NODE_IMAGE=$node_image")

# package.json fields without a second JSON tool: node is there (any version reads JSON).
field() { node -p "const p = require(process.argv[1]); $2" "$1"; }

# What must hold inside every app image, run in the image itself (its sh and find): the
# app is /app (package.json, bin, dist), its dependencies /app/node_modules, the workspace
# packages among them /app/node_modules/@tandem/*. Arguments: the other apps' names.
# shellcheck disable=SC2016  # expanded by the image's sh
CONTENT_CHECK='
for tool in npm npx corepack yarn; do
  if command -v "$tool" >/dev/null; then echo "$tool is in the image: $(command -v "$tool")"; fail=1; fi
done
[ ! -e /usr/local/lib/node_modules ] || { echo "/usr/local/lib/node_modules is in the image"; fail=1; }
for other in "$@"; do
  [ ! -e "/app/node_modules/@tandem/$other" ] || { echo "another app is in the image: $other"; fail=1; }
done
found=$(find /app /app/node_modules/@tandem/* -path /app/node_modules -prune -o \
  -path "/app/node_modules/@tandem/*/node_modules" -prune -o \
  \( -name src -o -name "*.spec.*" -o -name "*.ts" -o -name "tsconfig*.json" \) -print)
[ -z "$found" ] || { echo "sources, specs or tsconfig in the image:"; echo "$found"; fail=1; }
exit "${fail:-0}"'

# Installed packages in /app/node_modules that are not the workspace's own (@tandem/*),
# nested installs included: the figure docs/benchmarks.md compares.
COUNT_PACKAGES='find /app/node_modules -name package.json | grep -vF /@tandem/ |
  grep -cE "node_modules/(@[^/]+/)?[^/@][^/]*/package\.json$"'

# check_image IMAGE APP VERSION: fails, saying why, where the image has regressed.
check_image() {
  local image=$1 app=$2 version=$3 user sbom help status packages
  user=$(docker image inspect -f '{{.Config.User}}' "$image")
  [[ $user =~ ^[1-9][0-9]*(:[0-9]+)?$ ]] || { log "$image: user '$user' is not a numeric non-root UID"; return 1; }
  sbom=$(docker image inspect -f '{{index .Config.Labels "tandem.sbom"}}' "$image")
  [[ -n $sbom ]] || { log "$image: no tandem.sbom label"; return 1; }
  local others
  others=$(find "$ROOT/apps" -mindepth 1 -maxdepth 1 -type d ! -name "$app" -printf '%f\n')
  # shellcheck disable=SC2086  # one argument per other app
  docker run --rm --entrypoint /bin/sh "$image" -c "$CONTENT_CHECK" sh $others >&2 ||
    { log "$image: content check failed (above)"; return 1; }
  docker run --rm --entrypoint cat "$image" "$sbom" >"$SBOM_DIR/$app-$version.cdx.json"
  # shellcheck disable=SC2016  # JavaScript, not shell
  node -e '
    const [file, name, version] = process.argv.slice(1);
    const bom = JSON.parse(require("fs").readFileSync(file, "utf8"));
    // npm names the root component after its folder; its bom-ref is name@version.
    const subject = bom.metadata?.component;
    if (bom.bomFormat !== "CycloneDX" || subject?.["bom-ref"] !== `${name}@${version}`
      || !(bom.components?.length > 0))
      throw new Error(`${file}: not the CycloneDX SBOM of ${name}@${version} with its components`);
  ' "$SBOM_DIR/$app-$version.cdx.json" "@tandem/$app" "$version" ||
    { log "$image: $sbom is not its SBOM"; return 1; }
  # --help: 0 where the app prints its flags, 2 where its flag parser refuses the flag;
  # either runs only once dist/main.js and everything it imports loaded. A module
  # that does not resolve ends it with 1.
  status=0
  help=$(docker run --rm "$image" --help 2>&1) || status=$?
  if [[ $status -ne 0 && $status -ne 2 ]] || grep -q ERR_MODULE_NOT_FOUND <<<"$help"; then
    log "$image: the app's bin did not start (exit $status):"
    printf '%s\n' "$help" | tail -n 20 >&2
    return 1
  fi
  packages=$(docker run --rm --entrypoint /bin/sh "$image" -c "$COUNT_PACKAGES")
  log "checked $image: user $user, no npm, no sources or specs, SBOM $sbom" \
    "($SBOM_DIR/$app-$version.cdx.json), $packages third-party packages in node_modules, bin starts"
}

for manifest in "$ROOT"/apps/*/package.json; do
  app=$(basename "$(dirname "$manifest")")
  [[ -d $ROOT/deploy/$app ]] || continue
  version=$(field "$manifest" 'p.version')
  entry=$(field "$manifest" "Object.values(p.bin ?? {})[0] ?? ''")
  [[ -n $entry ]] || { log "apps/$app is deployed but has no bin"; exit 1; }
  image=tandem/$app:$version
  log "building $image"
  t0=$(date +%s)
  docker build -q -f "$ROOT/deploy/app.Dockerfile" "${build_args[@]}" --build-arg "APP=$app" \
    --build-arg "ENTRY=${entry#./}" --build-arg "VERSION=$version" -t "$image" "$ROOT" >&2
  log "built $image in $(( $(date +%s) - t0 ))s, $(docker image inspect -f '{{.Size}}' "$image") bytes"
  check_image "$image" "$app" "$version"
  images+=("$image")
done
((${#images[@]})) || { log "no deployed app (apps/<app> with deploy/<app>/)"; exit 1; }
printf '%s\n' "${images[@]}"
