# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project is imported from platform/ at run time, outside mypy's path)
"""How long a new bot author waits on a busy ladder: upload → verdict and upload → first
rated game, with a new version's debut lane (``LADDER_DEBUT=1``, the platform's default)
and without it (its first tables wait at the back of the ladder's queue, as before),
measured side by side in one run.

The ladder is kept busy as beat would keep it, but deeper: at least ``--queued`` (40)
ladder matches among the house bots (Five Cucumbers, established: past the provisional
stage) stay queued while new bots are uploaded one by one, ``--gap`` seconds apart. Real
workers play it all: the platform's worker (PostgreSQL, recording) and an arena worker
(``--concurrency``, the Docker sandbox; ``--sandbox process`` for a machine without one).
For each new version the figures are its upload → verdict, upload → first rated game, and
how many queued matches its first rated match had ahead of it on its queue when it was
queued. Target on the 2-core machine: first rated game p95 under 60 s with Docker.

Needs PostgreSQL and Redis (``make services``) and Docker (``make sandbox``). Uses a
database of its own (``cucumbers_bench``, recreated for each lane) and Redis database 8.

A version that has no rated game after ``--give-up`` seconds (300) is counted at that many
seconds and marked ``>``: its true wait is longer, so a percentile with one is a lower
bound (the lane without the debut tables reaches it on this machine).

    python benchmarks/first_rating.py [--uploads 6] [--queued 40] [--gap 10] [--lanes on,off]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pipeline import (
    FAST_BUILTINS,
    REPO,
    arena_environment,
    environment,
    fresh_database,
    house_bots_playing,
    load_average,
    setup_django,
    start_worker,
)

TARGET_P95_SECONDS = 60.0
#: How long one new version may wait for its first rated game before the run counts it at
#: that (a lower bound) and goes on.
GIVE_UP_SECONDS = 300.0


@dataclass(frozen=True, slots=True)
class Waited:
    """One new version's waits, in seconds, and its first rated match's place in line."""

    verdict: float
    first_rated: float
    ahead: int
    #: No rated game within the give-up time: ``first_rated`` is a lower bound.
    censored: bool = False

    def shown(self) -> str:
        return f"{'>' if self.censored else ''}{self.first_rated:.1f}"


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank: a p95 of six values is the largest)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


def keep_busy(queued: int) -> None:
    """Top the ladder up to ``queued`` waiting matches, as beat does (deeper)."""
    from web.pipeline.kinds import ladder

    ladder.top_up(target=queued)


def first_rated_match_place(bot_id: int) -> int:
    """How many queued matches were ahead of the bot's first rated match on its queue when
    that match was queued (those queued before it and still queued or started after)."""
    from arena.broker import queue_for
    from web.matches.models import Match

    first = Match.objects.filter(participants__bot_id=bot_id, kind="ladder").order_by("pk").first()
    if first is None:
        return -1
    same = [
        m
        for m in Match.objects.filter(pk__lt=first.pk, created_at__lte=first.created_at)
        if queue_for(m.kind, debut=m.debut) == queue_for(first.kind, debut=first.debut)
    ]
    # Ahead of it: queued before it, and not yet started when it was queued.
    return sum(1 for m in same if m.started_at is None or m.started_at > first.created_at)


def upload_one(number: int, queued: int, give_up: float) -> Waited:
    """Upload a new bot (the SDK's starter) and wait for its verdict and first rated game,
    keeping the ladder busy meanwhile."""
    from django.contrib.auth.models import User

    from web.bots.models import BotVersion, VersionStatus
    from web.bots.uploads import upload_version
    from web.matches.models import RatingChange

    source = (REPO / "sdk/src/cucumbers/templates/starter.py").read_bytes()
    owner = User.objects.create_user(f"newcomer{number}-{time.monotonic_ns()}")
    started = time.perf_counter()
    version = upload_version(
        owner, "starter.py", source, new_bot_name=f"new{number}", game="five-cucumbers"
    )
    verdict: float | None = None
    last_top_up = 0.0
    while True:
        now = time.perf_counter()
        if now - last_top_up > 2:
            keep_busy(queued)
            last_top_up = now
        status = BotVersion.objects.get(pk=version.pk).status
        if verdict is None and status not in (VersionStatus.QUEUED, VersionStatus.VALIDATING):
            verdict = now - started
            if status != VersionStatus.ACTIVE:
                raise SystemExit(f"the starter bot was {status}: see the workers' logs")
        if RatingChange.objects.filter(bot_id=version.bot_id).exists():
            assert verdict is not None
            return Waited(verdict, now - started, first_rated_match_place(version.bot_id))
        if verdict is not None and now - started > give_up:
            return Waited(verdict, give_up, first_rated_match_place(version.bot_id), True)
        if now - started > give_up + 120:
            raise SystemExit(f"no verdict for {version} after {give_up + 120:.0f} s")
        time.sleep(0.1)


def lane(
    debut: bool, args: argparse.Namespace, data_dir: str, logs: Path
) -> tuple[list[Waited], float]:
    """The waits of ``args.uploads`` new versions with the debut lane on or off, and the
    seconds the lane took."""
    env = environment(data_dir) | {
        "SANDBOX": args.sandbox,
        "LADDER_DEBUT": "1" if debut else "0",
        "LADDER_MIN_PLAYERS": "2",
        "LADDER_MAX_PLAYERS": "6",
        "MATCH_REAPER_SECONDS": "3600",
    }
    if "django.db" in sys.modules:  # the previous lane's connections, before its drop
        from django.db import connections

        connections.close_all()
    fresh_database()
    setup_django(env)
    from django.conf import settings

    from web.bots.models import Bot

    settings.LADDER_DEBUT = debut  # this process plans the top-ups
    house_bots_playing(list(FAST_BUILTINS))
    Bot.objects.update(games_since_version=100)  # the routine ladder: established bots
    platform = [sys.executable, "-m", "celery", "-A", "web", "worker", "--concurrency=1"]
    platform += ["--loglevel=INFO", "--without-gossip", "-n", "platform@%h"]
    arena = [sys.executable, "-m", "arena", "worker", f"--concurrency={args.concurrency}"]
    name = "on" if debut else "off"
    workers = [
        start_worker(platform, {**os.environ, **env}, logs / f"platform-{name}.log"),
        start_worker(arena, arena_environment({**os.environ, **env}), logs / f"arena-{name}.log"),
    ]
    began = time.perf_counter()
    waits: list[Waited] = []
    try:
        keep_busy(args.queued)
        for number in range(args.uploads):
            waits.append(upload_one(number, args.queued, args.give_up))
            print(
                f"  debut lane {name}: upload {number + 1}: verdict {waits[-1].verdict:.1f} s,"
                f" first rated game {waits[-1].shown()} s,"
                f" {waits[-1].ahead} matches ahead in its queue",
                flush=True,
            )
            pause = time.perf_counter() + args.gap
            while time.perf_counter() < pause:
                keep_busy(args.queued)
                time.sleep(1)
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
    return waits, time.perf_counter() - began


def summary(name: str, waits: list[Waited]) -> tuple[float, float, float, float]:
    verdicts = [w.verdict for w in waits]
    firsts = [w.first_rated for w in waits]
    row = (
        statistics.median(verdicts),
        percentile(verdicts, 0.95),
        statistics.median(firsts),
        percentile(firsts, 0.95),
    )
    aheads = ", ".join(str(w.ahead) for w in waits)
    bound = ">" if any(w.censored for w in waits) else ""
    print(
        f"  {name:22} {row[0]:>9.1f} {row[1]:>9.1f} {bound + f'{row[2]:.1f}':>11}"
        f" {bound + f'{row[3]:.1f}':>11}   ahead: {aheads};"
        f" each: {', '.join(w.shown() for w in waits)}"
    )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=6)
    parser.add_argument("--queued", type=int, default=40)
    parser.add_argument("--gap", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--sandbox", choices=["docker", "process"], default="docker")
    parser.add_argument("--give-up", type=float, default=GIVE_UP_SECONDS)
    parser.add_argument(
        "--lanes",
        default="on,off",
        help="which runs, in this order: on (the debut lane), off (without it)",
    )
    args = parser.parse_args()
    lanes = [name.strip() for name in args.lanes.split(",")]
    if not lanes or any(name not in ("on", "off") for name in lanes):
        parser.error("--lanes: a comma-separated list of on and off")
    started_at = datetime.now().isoformat(timespec="seconds")
    print(
        f"first rating on a busy ladder ({started_at}, load {load_average()}):"
        f" {args.uploads} uploads, {args.queued}+ ladder matches kept queued,"
        f" arena concurrency {args.concurrency}, sandbox {args.sandbox}"
    )
    results = {}
    with tempfile.TemporaryDirectory(prefix="cucumbers-first-rating-") as data_dir:
        logs = Path(data_dir) / "logs"
        logs.mkdir()
        # The debut lane first (short), then the old way, in one run on one machine.
        for name in lanes:
            results[name == "on"] = lane(name == "on", args, data_dir, logs)
    print(f"\n  {'seconds':22} {'verdict':>9} {'':>9} {'first rated':>11} {'':>11}")
    print(f"  {'':22} {'p50':>9} {'p95':>9} {'p50':>11} {'p95':>11}")
    rows = {
        debut: summary("with the debut lane" if debut else "without the debut lane", waits)
        for debut, (waits, _) in results.items()
    }
    if True in rows:
        new = rows[True]
        met = "meets" if new[3] <= TARGET_P95_SECONDS else "misses"
        print(f"\n  first rated game p95 with the debut lane: {new[3]:.1f} s;", end="")
        if False in rows:
            old = rows[False]
            bound = ">" if any(w.censored for w in results[False][0]) else ""
            print(f" without: {bound}{old[3]:.1f} s ({bound}{old[3] / new[3]:.1f}x);", end="")
        print(f" {met} the {TARGET_P95_SECONDS:g} s target (load now {load_average()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
