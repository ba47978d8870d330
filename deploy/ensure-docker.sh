#!/usr/bin/env bash
# Make a Docker engine answer on this machine: on Debian as root, install docker.io when the
# engine is missing and start dockerd in the background. Idempotent; exits non-zero when no
# engine can be had (the caller decides whether that is fatal).
set -euo pipefail

wait_for_engine() {
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

if docker info >/dev/null 2>&1; then
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
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
