# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project is imported from platform/ at run time, outside mypy's path)
"""Rated games per hour through the whole ladder pipeline on this machine.

Four-bot tables of Five Cucumbers between the SDK's built-in bots, uploaded as files (the
house bots), played in the Docker sandbox by a real Celery worker (Redis broker, PostgreSQL,
replays in file storage, ratings in the recording transaction). First a few matches in this
process to see where the time goes, then a batch through the worker for the throughput.

Needs PostgreSQL and Redis (``make services``) and Docker (``make sandbox``). Uses a database
of its own (``cucumbers_bench``, recreated) and Redis database 8.

    python benchmarks/pipeline.py [--matches 24] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DB_NAME = "cucumbers_bench"
SERVER = "postgres://cucumbers:cucumbers@127.0.0.1:5432"
REDIS_URL = "redis://127.0.0.1:6379/8"
TARGET_PER_HOUR = 20_000


def environment(data_dir: str) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "web.settings",
        "DEBUG": "0",
        "SECRET_KEY": "benchmark-only",
        "DATABASE_URL": f"{SERVER}/{DB_NAME}",
        "REDIS_URL": REDIS_URL,
        "DATA_DIR": data_dir,
        "SANDBOX": "docker",
        "MATCH_GAMES": "5",
        "LADDER_MIN_PLAYERS": "4",
        "LADDER_MAX_PLAYERS": "4",
        "LADDER_QUEUE_TARGET": "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": os.pathsep.join([str(REPO / "platform"), str(REPO)]),
    }


def fresh_database() -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB_NAME}")


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    sys.path.insert(0, str(REPO / "platform"))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()


def house_bots_playing() -> int:
    """The house bots, uploaded as files, marked active without a validation match."""
    from web.bots.house import ensure_house_bots
    from web.bots.models import Bot, BotVersion, VersionStatus

    ensure_house_bots()
    for version in BotVersion.objects.all():
        BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
        Bot.objects.filter(pk=version.bot_id).update(active_version=version)
    return int(Bot.objects.filter(game="five-cucumbers").count())


def breakdown(matches: int) -> None:
    from web.matches.ladder import queue_ladder_matches
    from web.matches.running import run_match
    from web.sandbox import SandboxKind

    totals: dict[str, float] = {}
    started = time.perf_counter()
    for match in queue_ladder_matches("five-cucumbers", matches):
        report = run_match(match.pk, SandboxKind.DOCKER)
        assert report.result == "finished", report
        for key, value in report.timings.as_fields().items():
            totals[key] = totals.get(key, 0.0) + value
    wall = (time.perf_counter() - started) / matches
    print(f"where the time goes (one match of 5 games, 4 bots, mean of {matches}, in-process):")
    print(f"  whole run_match                        {wall * 1000:8.1f} ms")
    labels = {
        "t_sandbox_start": "sandbox start (4 containers, parallel)",
        "t_games": "5 games (engine + moves)",
        "t_moves": "  of which bots' moves (round trips)",
        "t_sandbox_stop": "sandbox stop (quit, remove containers)",
        "t_storage": "replays to storage (gzip + write)",
        "t_rating_transaction": "placements + ratings transaction",
    }
    for key, label in labels.items():
        print(f"  {label:38s} {totals[key] / matches * 1000:8.1f} ms")
    print("  (the rest: claim, staging the bots' files, loading rows, commit)")


def throughput(matches: int, concurrency: int, env: dict[str, str], log: Path) -> float:
    from web.matches.ladder import queue_ladder_matches
    from web.matches.models import Match, MatchStatus

    argv = [sys.executable, "-m", "celery", "-A", "web", "worker"]
    argv += [f"--concurrency={concurrency}", "--loglevel=INFO", "--without-gossip"]
    with log.open("wb") as out:
        worker = subprocess.Popen(
            argv, cwd=REPO, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        deadline = time.monotonic() + 60
        while "ready." not in log.read_text(errors="replace"):
            if time.monotonic() > deadline or worker.poll() is not None:
                raise SystemExit(f"the worker did not start; see {log}")
            time.sleep(0.2)
        started = time.perf_counter()
        ids = [m.pk for m in queue_ladder_matches("five-cucumbers", matches)]
        while Match.objects.filter(pk__in=ids, status=MatchStatus.FINISHED).count() < len(ids):
            if Match.objects.filter(pk__in=ids, status=MatchStatus.FAILED).exists():
                raise SystemExit("a match failed; see the worker log")
            time.sleep(0.1)
        elapsed = time.perf_counter() - started
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    games = matches * 5
    per_hour = games / elapsed * 3600
    print(
        f"through the worker (concurrency {concurrency}): {matches} matches, {games} rated"
        f" games in {elapsed:.1f} s"
    )
    return per_hour


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--breakdown-matches", type=int, default=4)
    args = parser.parse_args()
    data_dir = tempfile.mkdtemp(prefix="cucumbers-bench-")
    try:
        env = environment(data_dir)
        fresh_database()
        setup_django(env)
        print(f"{house_bots_playing()} house bots on the Five Cucumbers ladder, 4-bot tables")
        breakdown(args.breakdown_matches)
        per_hour = throughput(args.matches, args.concurrency, env, Path(data_dir) / "worker.log")
        verdict = "meets" if per_hour >= TARGET_PER_HOUR else "below"
        print(f"rated games per hour: {per_hour:,.0f} ({verdict} the {TARGET_PER_HOUR:,} target)")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
