#!/usr/bin/env bash
# Make gVisor's runtime (runsc) available to the Docker engine as "runsc", for
# CUCUMBERS_SANDBOX_RUNTIME=runsc and for the sandbox tests, which run under every runtime
# the engine has. On Debian as root: installs Debian's runsc when missing, registers it in
# /etc/docker/daemon.json (kept as it is otherwise) and makes dockerd reload its settings.
# Idempotent; not fatal: without gVisor, the sandbox runs with runc only.
#
# runsc runs with --network=none: the bot containers have no network, and on these machines
# gVisor's own network stack would not start without it. Not with --oci-seccomp: gVisor's
# kernel stands between the bot and the host's (itself under gVisor's own seccomp filters),
# and Debian's runsc (2022-12) breaks thread creation under any OCI profile, Docker's
# default included; the sandbox passes no profile to runsc (arena/sandbox/container.py).
set -uo pipefail

DAEMON_JSON=/etc/docker/daemon.json

has_runsc() {
  docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'
}

if has_runsc && ! grep -q -- "--oci-seccomp" "$DAEMON_JSON" 2>/dev/null; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-gvisor: gVisor is not registered, and registering it needs root on Debian" >&2
  exit 0
fi
if ! command -v runsc >/dev/null 2>&1; then
  echo "ensure-gvisor: installing runsc from Debian's packages" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null \
    || { echo "ensure-gvisor: could not install runsc" >&2; exit 0; }
fi
mkdir -p "$(dirname "$DAEMON_JSON")"
python3 - "$DAEMON_JSON" "$(command -v runsc)" <<'PY'
import json, os, sys
path, runsc = sys.argv[1], sys.argv[2]
settings = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else {}
settings.setdefault("runtimes", {})["runsc"] = {
    "path": runsc,
    "runtimeArgs": ["--network=none"],
}
with open(path + ".new", "w") as file:
    json.dump(settings, file, indent=2)
    file.write("\n")
os.replace(path + ".new", path)
PY
echo "ensure-gvisor: registered runsc in $DAEMON_JSON; reloading dockerd" >&2
pkill -HUP -x dockerd || true
for _ in $(seq 1 40); do
  has_runsc && exit 0
  sleep 0.25
done
echo "ensure-gvisor: dockerd did not pick up runsc; see /var/log/dockerd.log" >&2
exit 0
