#!/usr/bin/env bash
# Make a Docker engine answer on this machine: on Debian as root, install docker.io when the
# engine is missing and start dockerd in the background. Idempotent; exits non-zero when no
# engine can be had (the caller decides whether that is fatal). Also installs Debian's
# docker-compose when it can (the tests validate docker-compose.yml with it; not fatal).
set -euo pipefail

can_install() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1
}

ensure_compose() {
  if command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1; then
    return 0
  fi
  if can_install; then
    echo "ensure-docker: installing docker-compose from Debian's packages" >&2
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null \
      || echo "ensure-docker: could not install docker-compose" >&2
  fi
}

wait_for_engine() {
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

ensure_compose
if docker info >/dev/null 2>&1; then
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if ! can_install; then
    echo "ensure-docker: no Docker engine, and cannot install one (needs root on Debian)" >&2
    exit 1
  fi
  echo "ensure-docker: installing docker.io from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io >/dev/null
fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-docker: dockerd is installed but not running, and starting it needs root" >&2
  exit 1
fi
echo "ensure-docker: starting dockerd (log: /var/log/dockerd.log)" >&2
nohup dockerd >/var/log/dockerd.log 2>&1 &
if ! wait_for_engine; then
  echo "ensure-docker: dockerd did not answer within 30 s; see /var/log/dockerd.log" >&2
  exit 1
fi
