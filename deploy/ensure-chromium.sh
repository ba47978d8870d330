#!/usr/bin/env bash
# Make Debian's Chromium available at /usr/bin/chromium for the browser tests (tests/e2e/,
# Playwright drives it by path; no browser is ever downloaded by Playwright). Installs the
# package when missing and running as root; otherwise says what is missing and leaves the
# decision to the tests (they skip, or fail under CI=true). Idempotent.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: /usr/bin/chromium is missing, and installing it needs root" >&2
  exit 0
fi
echo "ensure-chromium: installing chromium from Debian's packages" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
