#!/usr/bin/env bash
# A Debian bookworm base image made without any container registry: debootstrap's minimal
# root filesystem (apt, and the security and updates suites in its sources), imported into
# the engine. The offline images of deploy/offline/ are built FROM it with Debian's
# packages (deploy/offline_images.py). Usage: debian-base.sh IMAGE_TAG
# Needs root, debootstrap (installed from Debian's packages if missing) and a Docker engine.
set -euo pipefail
tag=${1:?usage: debian-base.sh IMAGE_TAG}
mirror=${DEBOOTSTRAP_MIRROR:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
rootfs=$(mktemp -d /tmp/cucumber-arena-rootfs.XXXXXX)
log=$(mktemp /tmp/cucumber-arena-debootstrap.XXXXXX.log)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$log" 2>&1 || {
  echo "debootstrap failed; see $log" >&2
  exit 1
}
cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
# As Docker's official Debian images do: no package caches, no recommends.
cat >"$rootfs/etc/apt/apt.conf.d/90cucumber-arena" <<'APT'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
APT
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import \
  -c 'ENV LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'CMD ["bash"]' - "$tag" >/dev/null
rm -f "$log"
echo "$tag"
