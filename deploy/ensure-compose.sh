#!/usr/bin/env bash
# Make Docker Compose and a Docker engine available (for make stack-check): the engine as
# deploy/ensure-docker.sh does, then compose v2 (`docker compose`) if present, else
# Debian's docker-compose (1.29; Debian 12 packages no compose v2 plugin), installed when
# missing (Debian, root). Idempotent; exits non-zero when no compose can be had.
set -euo pipefail
here=$(dirname "$0")

"$here/ensure-docker.sh"
if docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-compose: installing docker-compose from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
fi
if ! docker compose version >/dev/null 2>&1 && ! command -v docker-compose >/dev/null 2>&1; then
  echo "ensure-compose: no Docker Compose, and cannot install one (needs root on Debian)" >&2
  exit 1
fi
