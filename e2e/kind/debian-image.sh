#!/usr/bin/env bash
# The Debian base image every offline image starts from: a debootstrap minbase
# rootfs of TANDEM_KIND_DEBIAN_SUITE, imported into the running Docker engine as
# tandem/debian:<suite>-minbase. The rootfs tarball is cached (the image itself
# lives as long as the engine's data root), so a second run imports or does nothing.
#
# Usage: debian-image.sh     prints the image name on stdout
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../control-plane/common.sh
. "$HERE/../control-plane/common.sh"

log() { printf '[debian-image %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

SUITE=$TANDEM_KIND_DEBIAN_SUITE
ARCH=$(dpkg --print-architecture)
IMAGE=tandem/debian:$SUITE-minbase
TARBALL=$(tandem_kind_cache_root)/rootfs/debian-$SUITE-minbase-$ARCH.tar

# The Debian mirror this host's apt uses (deb822 or one-line sources).
debian_mirror() {
  if [[ -n ${TANDEM_DEBIAN_MIRROR:-} ]]; then printf '%s\n' "$TANDEM_DEBIAN_MIRROR"; return; fi
  local uri
  uri=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 's#^URIs:[[:space:]]*\(\S*/debian\)/\?$#\1#p' | head -n 1)
  [[ -n $uri ]] || uri=$(sed -n 's#^deb[[:space:]]\+\(\S*/debian\)/\?[[:space:]].*#\1#p' /etc/apt/sources.list 2>/dev/null | head -n 1)
  [[ -n $uri ]] || { log "no Debian mirror in apt's sources; set TANDEM_DEBIAN_MIRROR"; return 1; }
  printf '%s\n' "$uri"
}

if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  log "present: $IMAGE"
  printf '%s\n' "$IMAGE"
  exit 0
fi

if [[ ! -s $TARBALL ]]; then
  command -v debootstrap >/dev/null || {
    log "installing debootstrap from Debian"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2
  }
  mirror=$(debian_mirror)
  rootfs=$(mktemp -d "${TMPDIR:-/tmp}/tandem-debootstrap.XXXXXX")
  # debootstrap mounts /proc and /sys (and may bind /dev) inside the target: a failed
  # run can leave them there, so unmount before removing, and never cross a mount. (Under
  # set -e a failed umount, the usual case, would end the trap before its rm.)
  trap 'umount -R -l "$rootfs"/{proc,sys,dev} 2>/dev/null || true; rm -rf --one-file-system "$rootfs"' EXIT
  log "debootstrap --variant=minbase $SUITE from $mirror (a few minutes)"
  nice -n 10 debootstrap --variant=minbase "$SUITE" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 ||
    { tail -n 30 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
  rm -f "$rootfs.log"
  # Security updates too, as the upstream slim images carry them.
  printf 'deb %s %s main\ndeb %s %s-updates main\n' "$mirror" "$SUITE" "$mirror" "$SUITE" >"$rootfs/etc/apt/sources.list"
  if [[ $mirror == */debian ]]; then
    printf 'deb %s-security %s-security main\n' "$mirror" "$SUITE" >>"$rootfs/etc/apt/sources.list"
  fi
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  mkdir -p "$(dirname "$TARBALL")"
  tar -C "$rootfs" --numeric-owner -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi

log "importing $TARBALL as $IMAGE"
docker import --change 'CMD ["/bin/bash"]' "$TARBALL" "$IMAGE" >/dev/null
printf '%s\n' "$IMAGE"
