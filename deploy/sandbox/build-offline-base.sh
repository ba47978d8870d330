#!/usr/bin/env bash
# Build the sandbox's base image without any container registry, from Debian's packages:
# a minimal Debian bookworm root filesystem with Python 3.11 and numpy, imported as an image.
# Usage: build-offline-base.sh IMAGE_TAG      (needs root, debootstrap and a Docker engine)
set -euo pipefail
tag=${1:?usage: build-offline-base.sh IMAGE_TAG}

if ! command -v debootstrap >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
rootfs=$(mktemp -d /tmp/cucumbers-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
# debootstrap uses Debian's default mirror unless DEBOOTSTRAP_MIRROR says otherwise.
debootstrap --variant=minbase --include=python3,python3-numpy bookworm "$rootfs" \
  ${DEBOOTSTRAP_MIRROR:-} >/tmp/cucumbers-debootstrap.log 2>&1 || {
  echo "debootstrap failed; see /tmp/cucumbers-debootstrap.log" >&2
  exit 1
}
# Nothing a bot could use to fetch or build things, and a smaller image.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import -c 'ENV LANG=C.UTF-8' - "$tag" >/dev/null
echo "$tag"
