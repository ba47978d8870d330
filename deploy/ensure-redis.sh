#!/usr/bin/env bash
# Make a Redis server answer on 127.0.0.1:6379 (the Celery broker of the pipeline tests). On
# Debian as root: installs Debian's redis-server when missing and starts it, bound to the
# loopback only, without persistence (a test broker). Idempotent.
set -euo pipefail

PORT=${CUCUMBERS_REDIS_PORT:-6379}

answers() { redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null | grep -q PONG; }

if command -v redis-cli >/dev/null 2>&1 && answers; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-redis: no server on 127.0.0.1:$PORT, and setting one up needs root" >&2
  exit 1
fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "ensure-redis: installing redis-server from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

if ! answers; then
  echo "ensure-redis: starting redis-server on 127.0.0.1:$PORT" >&2
  # Not through systemd (absent in containers): a daemon of its own, loopback only.
  redis-server --bind 127.0.0.1 --port "$PORT" --daemonize yes --save '' --appendonly no \
    --protected-mode yes --logfile /tmp/cucumbers-redis.log
fi
for _ in $(seq 1 40); do
  answers && exit 0
  sleep 0.25
done
echo "ensure-redis: server did not answer on 127.0.0.1:$PORT" >&2
exit 1
