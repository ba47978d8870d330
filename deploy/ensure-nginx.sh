#!/usr/bin/env bash
# Make Debian's nginx available at /usr/sbin/nginx for the proxy test
# (tests/web/test_proxy.py starts it with deploy/proxy/nginx.conf in front of gunicorn; it
# never runs as a system service here). Installs nginx-light when missing and running as
# root; otherwise says what is missing and leaves the decision to the test (it skips, or
# fails under CI=true). Idempotent.
set -euo pipefail

if [ -x /usr/sbin/nginx ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-nginx: /usr/sbin/nginx is missing, and installing it needs root" >&2
  exit 0
fi
echo "ensure-nginx: installing nginx-light from Debian's packages" >&2
apt-get update -qq
# The package must not start a server of its own on port 80: a policy-rc.d that refuses
# (only if the machine has none; Docker's Debian images ship one), removed afterwards.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
