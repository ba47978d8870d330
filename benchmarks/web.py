# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project is imported from platform/ at run time, outside mypy's path)
"""The site under load: a big ladder served by gunicorn to 50 visitors at once.

Fills a PostgreSQL database of its own (``bench_web_<pid>`` on the server of ``make
services``, created, migrated and dropped by this run) with 10,000 bots and 1,000,000 rated
games with their rating history (``web_fill.py``: generated rows, nothing played), serves it
with gunicorn as in production (``deploy/gunicorn.conf.py``, DEBUG off, WhiteNoise's
manifest, Redis as the cache on database 10, which this run empties), and sends 50
concurrent visitors (``web_clients.py``) at five pages: the leaderboard (a random page of
the 9,000 listed bots), the leaderboard API (likewise), a bot page with its charts (the
bot with 10,000 rated games), a match page (a random ladder match) and the match list (a
random one of its first 20 pages). Each page's query count is measured once, in this
process, with Django's test client.

Two runs. *Visitors*: each of the 50 clients thinks 1-5 s between two pages (locust's
customary ``between(1, 5)``; a person reading a leaderboard takes longer), about 15
requests a second in all: the target, p95 under 100 ms and no error, is for this run.
With no think time at all, 50 requests are always in flight and, by Little's law, a p95
under 100 ms would need 500 answers a second from 2 cores. *Saturation*: those 50
clients with no think time, the most the server answers per second on this machine (its
latencies are queueing). Each run also gives the CPU the server spent per request
(gunicorn's processes and the database's backends of this run, from ``/proc``): the
figure that other work on this shared machine does not change.

The database is rebuilt at every run (about 2-3 minutes): a kept copy could silently
outlive a migration or a change of the filler. Whatever happens, gunicorn is stopped and
the database dropped.

    python benchmarks/web.py [--seconds 60] [--clients 50] [--skip-saturation]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# This file is named web.py: the project package must win the name.
sys.path.insert(0, str(REPO / "platform"))
sys.path.insert(1, str(REPO))

from pipeline import SERVER, load_average, process_stats  # noqa: E402
from web_clients import Page, fetch, run_clients, table  # noqa: E402
from web_fill import MATCHES, fill  # noqa: E402

#: The site's cache (nothing here uses the broker: no match is played).
CACHE_URL = "redis://127.0.0.1:6379/10"
TARGET_MS = 100.0
HOST = "127.0.0.1"
LISTED_PAGES = 170  # 8,500 listed Five Cucumbers bots at 50 a page


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def environment(database: str, data_dir: str, port: int) -> dict[str, str]:
    from arena.signing import ensure_key_pair

    # As in production, the web server does not start without the key that signs jobs.
    signing_key = str(Path(data_dir) / "keys" / "platform")
    ensure_key_pair(signing_key)
    return {
        "ARENA_SIGNING_KEY_FILE": signing_key,
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
        "DJANGO_SETTINGS_MODULE": "web.settings",
        "DEBUG": "0",
        "SECRET_KEY": "benchmark-only",
        "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_COOKIES": "0",
        "DATABASE_URL": f"{SERVER}/{database}",
        "CACHE_URL": CACHE_URL,
        # All 50 visitors come from one address: the API's limits per address (120 and 600
        # a minute) would answer 429. A window of a second keeps each client's history in
        # Redis as short as a real visitor's; the throttles still count, as in production.
        "API_ANON_RATE": "100000/second",
        "API_USER_RATE": "100000/second",
        "DATA_DIR": data_dir,
        "LOG_LEVEL": "WARNING",
        "GUNICORN_BIND": f"{HOST}:{port}",
        "PYTHONPATH": os.pathsep.join([str(REPO / "platform"), str(REPO)]),
    }


def pages(veteran: int) -> list[Page]:
    return [
        Page(
            "leaderboard",
            lambda r: f"/leaderboard/five-cucumbers/?page={r.randint(1, LISTED_PAGES)}",
        ),
        Page("leaderboard API", lambda r: f"/api/leaderboard/?page={r.randint(1, LISTED_PAGES)}"),
        Page("bot page, 10,000 games", lambda r: f"/bots/{veteran}/"),
        Page("match page", lambda r: f"/matches/{r.randint(1, MATCHES)}/"),
        Page("match list", lambda r: f"/matches/?page={r.randint(1, 20)}"),
    ]


def column_defaults() -> None:
    """The models' constant defaults as their columns' own (Django keeps them in Python):
    the filler's COPY names the columns it knows, so a field added since still gets its
    default instead of a NOT NULL violation. The database is this run's alone."""
    from django.apps import apps
    from django.db import connection

    with connection.cursor() as cursor:
        for model in apps.get_models():
            for field in model._meta.concrete_fields:
                if field.null or not field.has_default() or callable(field.default):
                    continue
                value = field.get_db_prep_save(field.default, connection)
                cursor.execute(
                    f'ALTER TABLE "{model._meta.db_table}" ALTER COLUMN "{field.column}"'
                    " SET DEFAULT %s",
                    [value],
                )


def query_counts(veteran: int, sample_match: int) -> dict[str, int]:
    """Queries per page, counted once in this process (anonymous visitor, page 2 of the
    paginated ones)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST=HOST)
    urls = {
        "leaderboard": "/leaderboard/five-cucumbers/?page=2",
        "leaderboard API": "/api/leaderboard/?page=2",
        "bot page, 10,000 games": f"/bots/{veteran}/",
        "match page": f"/matches/{sample_match}/",
        "match list": "/matches/?page=2",
    }
    counts = {}
    for name, url in urls.items():
        client.get(url)  # caches and connections warm, as under load
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        counts[name] = len(queries)
    return counts


def start_gunicorn(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                "-c",
                "deploy/gunicorn.conf.py",
                "web.wsgi",
            ],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped whole, and only it
        )


def wait_ready(server: subprocess.Popen[bytes], port: int, deadline: float = 60.0) -> None:
    until = time.monotonic() + deadline
    while time.monotonic() < until:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.returncode}")
        try:
            if fetch(HOST, port, "/health/live", timeout=2)[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer within a minute")


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)  # the group this run started, no other
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def server_cpu_seconds(group: int, database: str) -> float:
    """CPU seconds spent so far by gunicorn's processes (its process group) and by the
    database's backends serving ``database``."""
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", [database]
        ).fetchall()
    backends = {pid for (pid,) in rows}
    total = sum(p.own_ticks for p in process_stats() if p.group == group or p.pid in backends)
    return total / os.sysconf("SC_CLK_TCK")


def drop_database(database: str) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each run")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--skip-saturation", action="store_true")
    args = parser.parse_args()

    import psycopg
    import redis

    database = f"bench_web_{os.getpid()}"
    data_dir = tempfile.mkdtemp(prefix="cucumbers-bench-web-")
    port = free_port()
    env = environment(database, data_dir, port)
    server = None
    cache = redis.Redis.from_url(CACHE_URL)
    try:
        with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {database}")
        cache.flushdb()
        os.environ.update(env)
        import django

        django.setup()
        from django.core.management import call_command

        print(f"load average before: {load_average()}")
        began = time.perf_counter()
        call_command("migrate", verbosity=0)
        column_defaults()
        filled = fill(f"{SERVER}/{database}")
        print(
            f"filled in {time.perf_counter() - began:.0f} s: {filled.bots:,} bots,"
            f" {filled.matches:,} ladder matches, {filled.rated_games:,} rated games,"
            f" {filled.rating_changes:,} rating changes; bot {filled.veteran}:"
            f" {filled.veteran_games:,} rated games"
        )
        call_command("collectstatic", interactive=False, verbosity=0)
        queries = query_counts(filled.veteran, filled.sample_match)
        cache.flushdb()  # the load starts from a cold cache, as after a deploy
        server = start_gunicorn(env, Path(data_dir) / "gunicorn.log")
        wait_ready(server, port)
        visits = pages(filled.veteran)
        run_clients(HOST, port, visits, clients=5, seconds=10, think=(0, 0))  # warm-up
        runs = [("visitors", (1.0, 5.0))]
        if not args.skip_saturation:
            runs.append(("saturation", (0.0, 0.0)))
        failed = False
        for name, think in runs:
            print(f"load average before the {name} run: {load_average()}")
            before = server_cpu_seconds(server.pid, database)
            run = run_clients(
                HOST, port, visits, clients=args.clients, seconds=args.seconds, think=think
            )
            spent = server_cpu_seconds(server.pid, database) - before
            print(
                f"\n{name}: {args.clients} clients, think time {think[0]}-{think[1]} s,"
                f" {run.seconds:.0f} s, {run.requests / run.seconds:.1f} req/s in all,"
                f" server CPU {1e3 * spent / max(run.requests, 1):.1f} ms per request"
            )
            print("\n".join(table(run, queries, TARGET_MS)))
            for tally in run.tallies.values():
                for error in tally.errors[:3]:
                    print(f"  error: {error}")
            if name == "visitors":
                slow = [n for n, t in run.tallies.items() if 1e3 * t.percentile(0.95) >= TARGET_MS]
                print(f"p95 at or above {TARGET_MS:g} ms: {', '.join(slow) or 'none'}")
            failed = failed or any(t.errors for t in run.tallies.values())
        print(f"\nload average at the end: {load_average()}")
        # A page that answers an error is a bug (non-zero exit); a slow one is a figure, as
        # in the other benchmarks, which a loaded machine moves.
        return 1 if failed else 0
    finally:
        if server is not None:
            stop(server)
        from django.db import connections

        connections.close_all()
        drop_database(database)
        cache.flushdb()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
