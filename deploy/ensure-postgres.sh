#!/usr/bin/env bash
# Make a PostgreSQL server answer on 127.0.0.1:5432 with the role and database the tests use
# (DATABASE_URL=postgres://cucumbers:cucumbers@127.0.0.1:5432/cucumbers). On Debian as root:
# installs the server when missing, creates and starts a cluster. Idempotent.
set -euo pipefail

ROLE=${CUCUMBERS_PG_ROLE:-cucumbers}
PASSWORD=${CUCUMBERS_PG_PASSWORD:-cucumbers}
DATABASE=${CUCUMBERS_PG_DATABASE:-cucumbers}
PORT=5432

as_postgres() { runuser -u postgres -- "$@"; }

if [ "$(id -u)" != 0 ]; then
  if pg_isready -q -h 127.0.0.1 -p "$PORT" 2>/dev/null; then exit 0; fi
  echo "ensure-postgres: no server on 127.0.0.1:$PORT, and setting one up needs root" >&2
  exit 1
fi

if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  echo "ensure-postgres: installing postgresql from Debian's packages" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi

cluster=$(pg_lsclusters --no-header | awk -v port="$PORT" '$3 == port {print $1, $2, $4; exit}')
if [ -z "$cluster" ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  echo "ensure-postgres: creating cluster $version/main on port $PORT" >&2
  pg_createcluster "$version" main --port "$PORT" >/dev/null
  cluster="$version main down"
fi
read -r version name status <<<"$cluster"
if [ "$status" != online ]; then
  echo "ensure-postgres: starting cluster $version/$name" >&2
  pg_ctlcluster "$version" "$name" start
fi
for _ in $(seq 1 60); do
  pg_isready -q -h 127.0.0.1 -p "$PORT" && break
  sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p "$PORT" || { echo "ensure-postgres: server did not answer" >&2; exit 1; }

# CREATEDB: pytest-django creates (and drops) its own test database beside this one.
exists=$(as_postgres psql -p "$PORT" -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'")
if [ "$exists" != 1 ]; then
  as_postgres psql -p "$PORT" -q -c "CREATE ROLE $ROLE LOGIN CREATEDB PASSWORD '$PASSWORD'"
fi
exists=$(as_postgres psql -p "$PORT" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")
if [ "$exists" != 1 ]; then
  as_postgres createdb -p "$PORT" -O "$ROLE" "$DATABASE"
fi
