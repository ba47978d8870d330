# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project is imported from platform/ at run time, outside mypy's path)
"""Rated games per hour through the whole ladder pipeline on this machine.

Four-bot tables of Five Cucumbers with duplicate deals (the ladder's default: deal sets, one
match of 5 deals per seat rotation; and, side by side, the one-process duplicate matches of
before, 2 deals in 8 games, which let a bot remember deals) between the SDK's fast built-in
bots (random, lowest, highest, heuristic: microseconds per move, so the figure is the
pipeline's, not the bots' thinking), uploaded as files (the house bots), played in the
Docker sandbox by a real arena worker (``python -m arena worker``, Redis broker) and
recorded by the platform's worker (PostgreSQL, replays in file storage, ratings in the
recording transaction). First a few
matches in this process to see where the time goes (wall time per part of a match, CPU time
per process family), then a batch through the workers for the throughput. The machine is
shared: the load average is printed, since other work on it lowers the figure.

``--match-games 5,10,20,40`` measures the length of the ladder's matches instead (issue 31):
deal sets of each length G (``MATCH_GAMES``: G deals per seat rotation) through the workers,
the lengths alternating over ``--rounds`` rounds so that the machine's other load falls on
each alike; per length the rated games per hour, the CPU seconds per rated game (the whole
machine, the Docker engine, PostgreSQL, the two workers' processes) and how long one match
holds a worker. ``benchmarks/match_length.py`` divides these by the games the ladder needs
at each length.

Needs PostgreSQL and Redis (``make services``) and Docker (``make sandbox``). Uses a database
of its own (``cucumbers_bench``, recreated) and Redis database 8.

    python benchmarks/pipeline.py [--matches 40] [--concurrency 2] [--bots random,lowest,...]
        [--match-games 5,10,20,40 [--rounds 2]]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ladder_convergence import MATCH_GAMES, games_list

REPO = Path(__file__).resolve().parents[1]
DB_NAME = "cucumbers_bench"
SERVER = "postgres://cucumbers:cucumbers@127.0.0.1:5432"
REDIS_URL = "redis://127.0.0.1:6379/8"
TARGET_PER_HOUR = 20_000
FAST_BUILTINS = ("random", "lowest", "highest", "heuristic")


#: The name the benchmark's arena worker signs its reports with.
ARENA_HOST = "bench-arena"


def environment(data_dir: str, database: str = DB_NAME) -> dict[str, str]:
    from arena.signing import ensure_key_pair

    signing_key = str(Path(data_dir) / "keys" / "platform")
    ensure_key_pair(signing_key)
    return {
        "ARENA_SIGNING_KEY_FILE": signing_key,
        "DJANGO_SETTINGS_MODULE": "web.settings",
        "DEBUG": "0",
        "SECRET_KEY": "benchmark-only",
        "DATABASE_URL": f"{SERVER}/{database}",
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


def load_average() -> str:
    """The machine's load averages (1, 5, 15 minutes), printed beside figures it lowers."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def fresh_database(database: str = DB_NAME) -> None:
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {database}")


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    sys.path.insert(0, str(REPO / "platform"))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from arena.signing import ensure_key_pair
    from web.arena_hosts.hosts import add_host

    add_host(ARENA_HOST, ensure_key_pair(Path(env["DATA_DIR"]) / "keys" / ARENA_HOST))
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()


def house_bots_playing(builtins: list[str]) -> int:
    """The house bots ``builtins``, uploaded as files, marked active without a validation
    match; the other house bots stay off the ladder: disabled, since their validation
    matches, queued with them, promote them once a worker plays those (the search bot, a
    second a move, would then sit at the tables of every batch after the first)."""
    from web.bots.house import HOUSE_USERNAME, ensure_house_bots, house_bot_name
    from web.bots.models import Bot, BotVersion, VersionStatus

    ensure_house_bots()
    names = [house_bot_name(name, "five-cucumbers") for name in builtins]
    house = Bot.objects.filter(owner__username=HOUSE_USERNAME)
    house.exclude(name__in=names).update(active=False)
    playing = BotVersion.objects.filter(bot__owner__username=HOUSE_USERNAME, bot__name__in=names)
    for version in playing:
        BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACTIVE)
        Bot.objects.filter(pk=version.bot_id).update(active_version=version)
    return int(Bot.objects.on_leaderboard("five-cucumbers").count())


def busy_cpu_seconds() -> float:
    """CPU seconds the whole machine has spent busy since boot (``/proc/stat``)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(value) for value in fields]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class ProcessStat:
    """One running process as ``/proc/PID/stat`` shows it; CPU in clock ticks."""

    pid: int
    name: str
    parent: int
    group: int
    own_ticks: int  # utime + stime
    waited_ticks: int  # cutime + cstime: its children it has waited for


def process_stats() -> list[ProcessStat]:
    """Every running process of the machine (those gone while read are left out)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # gone meanwhile
        fields = text[text.rindex(")") + 2 :].split()
        found.append(
            ProcessStat(
                pid=int(stat.parent.name),
                name=text[text.index("(") + 1 : text.rindex(")")],
                parent=int(fields[1]),
                group=int(fields[2]),
                own_ticks=int(fields[11]) + int(fields[12]),
                waited_ticks=int(fields[13]) + int(fields[14]),
            )
        )
    return found


def process_cpu_seconds(names: tuple[str, ...]) -> float:
    """CPU seconds used so far by the running processes called ``names`` (and by their
    children they have waited for)."""
    total = sum(p.own_ticks + p.waited_ticks for p in process_stats() if p.name in names)
    return total / os.sysconf("SC_CLK_TCK")


#: CPU accounts of the breakdown: the Docker engine's daemons, PostgreSQL's processes.
ENGINE = ("dockerd", "containerd")
DATABASE = ("postgres",)


def tree_cpu_seconds(roots: Sequence[int]) -> float:
    """CPU seconds used so far by the processes ``roots`` and every live descendant (a
    worker and its pool's children)."""
    stats = process_stats()
    parents = {p.pid: p.parent for p in stats}
    used = {p.pid: p.own_ticks + p.waited_ticks for p in stats}
    family = set(roots)
    grew = True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in family} - family
        family |= children
        grew = bool(children)
    return sum(used.get(pid, 0) for pid in family) / os.sysconf("SC_CLK_TCK")


def cpu_sample() -> dict[str, float]:
    me = os.times()
    return {
        "machine": busy_cpu_seconds(),
        "worker": me.user + me.system,
        "engine": process_cpu_seconds(ENGINE),
        "database": process_cpu_seconds(DATABASE),
    }


def breakdown(matches: int) -> None:
    """Run ``matches`` ladder matches one after another in this process: wall time per part
    of a match (the match's own timings) and CPU time per process family."""
    from web.pipeline.kinds.ladder import queue_ladder_matches
    from web.pipeline.running import run_match
    from web.sandbox import SandboxKind

    totals: dict[str, float] = {}
    queued = queue_ladder_matches("five-cucumbers", matches, send=False)  # played here
    matches = len(queued)  # whole deal sets
    before = cpu_sample()
    started = time.perf_counter()
    for match in queued:
        report = run_match(match.pk, SandboxKind.DOCKER)
        assert report.result in ("finished", "held"), report  # a set's last one finishes it
        for key, value in report.timings.items():
            totals[f"t_{key}"] = totals.get(f"t_{key}", 0.0) + value
    wall = (time.perf_counter() - started) / matches
    after = cpu_sample()
    cpu = {key: (after[key] - before[key]) / matches for key in before}
    print(f"where the time goes (one match of 5 games, 4 bots, mean of {matches}, in-process):")
    print(f"  whole run_match                        {wall * 1000:8.1f} ms wall")
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
    rest = cpu["machine"] - cpu["worker"] - cpu["engine"] - cpu["database"]
    cores = os.cpu_count() or 1
    print(f"CPU per match (all {cores} cores):          {cpu['machine'] * 1000:8.1f} ms")
    print(f"  worker process (Django, engine, runner) {cpu['worker'] * 1000:8.1f} ms")
    print(f"  dockerd + containerd                    {cpu['engine'] * 1000:8.1f} ms")
    print(f"  PostgreSQL                              {cpu['database'] * 1000:8.1f} ms")
    # Containers' shims, runc and the bots' hosts are not children of anything we can read
    # once they are gone, so they are the remainder; other work on the machine lands here too.
    print(f"  the rest (shims, runc, bot hosts, kernel, any other load) {rest * 1000:6.1f} ms")
    ceiling = cores / cpu["machine"] * 5 * 3600
    print(f"  all cores busy at this cost: {ceiling:,.0f} rated games per hour")


#: The target of a new upload's verdict while the ladder is busy.
TARGET_VERDICT_SECONDS = 10.0


def upload_to_verdict(queued: int) -> float:
    """Seconds from an upload to its verdict, uploaded behind ``queued`` ladder matches."""
    from django.contrib.auth.models import User

    from web.bots.models import BotVersion, VersionStatus
    from web.bots.uploads import upload_version

    source = (REPO / "sdk/src/cucumbers/templates/starter.py").read_bytes()
    owner = User.objects.create_user(f"newcomer{time.monotonic_ns()}")
    started = time.perf_counter()
    version = upload_version(owner, "starter.py", source, new_bot_name="starter", game="concombre")
    while BotVersion.objects.get(pk=version.pk).status in (
        VersionStatus.QUEUED,
        VersionStatus.VALIDATING,
    ):
        time.sleep(0.05)
    seconds = time.perf_counter() - started
    verdict = "meets" if seconds <= TARGET_VERDICT_SECONDS else "above"
    print(
        f"upload to verdict behind {queued} queued ladder matches: {seconds:.1f} s"
        f" ({verdict} the {TARGET_VERDICT_SECONDS:g} s target)"
    )
    return seconds


def start_worker(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A worker that ends with this process, however it ends (a benchmark stopped with
    SIGTERM or SIGKILL leaves no worker playing on)."""
    from arena.parent_death import end_with

    benchmark = os.getpid()
    with log.open("wb") as out:
        worker = subprocess.Popen(
            argv,
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: end_with(benchmark),
        )
    deadline = time.monotonic() + 120
    while "ready." not in log.read_text(errors="replace"):
        if time.monotonic() > deadline or worker.poll() is not None:
            raise SystemExit(f"a worker did not start; see {log}")
        time.sleep(0.2)
    return worker


#: How the ladder's duplicate deals are played: ``sets``, each seat rotation a match of its
#: own with fresh bot processes (the platform's way: no bot sees a deal twice); ``one-match``,
#: every rotation in one match (before: a bot could remember deals), measured beside it.
SCHEMES = ("sets", "one-match")


def queue_matches(count: int, scheme: str, games: int = MATCH_GAMES) -> list[int]:
    """About ``count`` ladder matches, sent: deal sets as the ladder queues them (of
    ``games`` deals per rotation: ``MATCH_GAMES``, the one setting of a ladder match's
    length), or as many one-process duplicate matches (4 seats: 2 deals, 8 games), which
    the platform no longer plans and this benchmark makes by hand to compare."""
    from django.test import override_settings

    from web.matches.models import Match
    from web.pipeline.dispatch import send_match
    from web.pipeline.kinds.ladder import queue_ladder_matches

    if scheme == "sets":
        with override_settings(MATCH_GAMES=games):
            return [m.pk for m in queue_ladder_matches("five-cucumbers", count)]
    with override_settings(LADDER_DUPLICATE=False):
        ids = [m.pk for m in queue_ladder_matches("five-cucumbers", count, send=False)]
    Match.objects.filter(pk__in=ids).update(duplicate=True, games_planned=8)
    for match_id in ids:
        send_match(match_id)
    return ids


def arena_environment(env: dict[str, str]) -> dict[str, str]:
    """What the arena worker gets: the broker's and the sandbox's variables, and its keys."""
    from arena.worker import worker_environment

    keys = Path(env["DATA_DIR"]) / "keys"
    return worker_environment(env) | {
        "ARENA_PLATFORM_KEY_FILE": env["ARENA_SIGNING_KEY_FILE"] + ".pub",
        "ARENA_HOST_KEY_FILE": str(keys / ARENA_HOST),
        "ARENA_HOST_NAME": ARENA_HOST,
    }


@dataclass(frozen=True, slots=True)
class Throughput:
    """One batch through the workers: rated games per hour, CPU seconds per rated game by
    account (``machine``: every core, other tenants' work included; ``engine``, ``database``,
    ``workers``: the platform's and the arena's worker processes with their children), and
    the median seconds one match held a worker (started to finished)."""

    games: int
    per_hour: float
    cpu_per_game: dict[str, float]
    match_seconds: float


def throughput(
    matches: int,
    concurrency: int,
    env: dict[str, str],
    logs: Path,
    scheme: str = "sets",
    games: int = MATCH_GAMES,
) -> Throughput:
    from web.matches.models import Match, MatchStatus

    # As deployed: the platform's worker records reports; the arena worker, given only the
    # broker's and the sandbox's variables, serves validations (urgent) before the ladder.
    platform = [sys.executable, "-m", "celery", "-A", "web", "worker"]
    platform += ["--concurrency=1", "--loglevel=INFO", "--without-gossip", "-n", "platform@%h"]
    arena = [sys.executable, "-m", "arena", "worker", f"--concurrency={concurrency}"]
    workers = [
        start_worker(platform, {**os.environ, **env}, logs / "platform.log"),
        start_worker(arena, arena_environment({**os.environ, **env}), logs / "arena.log"),
    ]
    try:
        before = cpu_sample() | {"workers": tree_cpu_seconds([w.pid for w in workers])}
        started = time.perf_counter()
        ids = queue_matches(matches, scheme, games)
        upload_to_verdict(len(ids))  # inside the window: ~1% of its games, said in the docs
        while Match.objects.filter(pk__in=ids, status=MatchStatus.FINISHED).count() < len(ids):
            if Match.objects.filter(pk__in=ids, status=MatchStatus.FAILED).exists():
                raise SystemExit(f"a match failed; see the workers' logs in {logs}")
            time.sleep(0.1)
        elapsed = time.perf_counter() - started
        after = cpu_sample() | {"workers": tree_cpu_seconds([w.pid for w in workers])}
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
    rows = Match.objects.filter(pk__in=ids)
    played = sum(rows.values_list("games_planned", flat=True))
    per_hour = played / elapsed * 3600
    held = [
        (finished - begun).total_seconds()
        for begun, finished in rows.values_list("started_at", "finished_at")
        if begun is not None and finished is not None  # every one: they all finished
    ]
    print(
        f"through the workers (arena concurrency {concurrency}, duplicate deals as {scheme}):"
        f" {len(ids)} matches, {played} rated games in {elapsed:.1f} s"
    )
    cpu = {key: (after[key] - before.get(key, 0.0)) / played for key in after}
    # The main process's own CPU is the benchmark's (queueing, polling): not the pipeline's.
    cpu.pop("worker")
    return Throughput(played, per_hour, cpu, statistics.median(held))


def measure_lengths(
    lengths: Sequence[int],
    rounds: int,
    matches: int,
    concurrency: int,
    env: dict[str, str],
    data_dir: Path,
) -> dict[int, list[Throughput]]:
    """Deal sets of each length in ``lengths`` through the workers, the lengths alternating
    over ``rounds`` rounds (the machine's drifting load falls on each alike)."""
    batches: dict[int, list[Throughput]] = {games: [] for games in lengths}
    # Not counted: the first batch after the set-up ran up to several times slower than the
    # next ones on the same length (caches, the first validation's containers), which
    # would charge the first length with it.
    print(f"-- warm-up (not counted): {lengths[0]} games a match, load {load_average()}")
    (data_dir / "warm-up").mkdir()
    throughput(4, concurrency, env, data_dir / "warm-up", "sets", lengths[0])
    for round_number in range(1, rounds + 1):
        for games in lengths:
            print(f"-- round {round_number}: {games} games a match, load {load_average()}")
            logs = data_dir / f"length-{games}-{round_number}"
            logs.mkdir()
            batches[games].append(throughput(matches, concurrency, env, logs, "sets", games))
    return batches


def print_lengths(batches: dict[int, list[Throughput]]) -> None:
    """Per length: rated games per hour (mean of the rounds, and each), its ratio to
    ``MATCH_GAMES`` (or the first length), CPU per rated game, a match's hold on a worker."""
    mean = {games: statistics.fmean(b.per_hour for b in runs) for games, runs in batches.items()}
    base = MATCH_GAMES if MATCH_GAMES in mean else next(iter(mean))
    print(f"games a match | rated games per hour (rounds) | x {base} games | CPU ms per rated game")
    for games, runs in batches.items():
        cpu = {
            key: statistics.fmean(b.cpu_per_game[key] for b in runs) * 1000
            for key in runs[0].cpu_per_game
        }
        print(
            f"  {games:3d}: {mean[games]:9,.0f} ({', '.join(f'{b.per_hour:,.0f}' for b in runs)})"
            f" {mean[games] / mean[base]:5.2f}x | machine {cpu['machine']:.0f}, dockerd+containerd"
            f" {cpu['engine']:.0f}, PostgreSQL {cpu['database']:.0f}, workers {cpu['workers']:.0f}"
            f" | a match holds a worker {statistics.fmean(b.match_seconds for b in runs):.1f} s"
        )


def engine_runtimes() -> list[str]:
    """runc, and gVisor's runsc when the engine has it registered."""
    from arena.sandbox.container import engine_runtimes

    known = engine_runtimes(5)
    return ["runc"] + (["runsc"] if "runsc" in known else [])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--concurrency", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--breakdown-matches", type=int, default=8)
    parser.add_argument("--bots", default=",".join(FAST_BUILTINS))
    parser.add_argument(
        "--match-games",
        type=games_list,
        help="measure deal sets of these games per match (deals per rotation), e.g. 5,10,20,40,"
        " instead of the runtimes and the one-match duplicate deals",
    )
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --match-games")
    parser.add_argument(
        "--runtimes",
        help="OCI runtimes of the bot containers, measured one after the other"
        " (default: runc, and runsc when the engine has it)",
    )
    args = parser.parse_args()
    runtimes = args.runtimes.split(",") if args.runtimes else engine_runtimes()
    data_dir = tempfile.mkdtemp(prefix="cucumbers-bench-")
    try:
        env = environment(data_dir)
        fresh_database()
        setup_django(env)
        print(f"load average before: {load_average()}")
        playing = house_bots_playing(args.bots.split(","))
        print(f"{playing} house bots on the Five Cucumbers ladder ({args.bots}), 4-bot tables")
        breakdown(args.breakdown_matches)
        if args.match_games:
            batches = measure_lengths(
                args.match_games,
                args.rounds,
                args.matches,
                args.concurrency,
                {**env, "CUCUMBERS_SANDBOX_RUNTIME": runtimes[0]},
                Path(data_dir),
            )
            print_lengths(batches)
            print(f"load average at the end: {load_average()}")
            return 0
        rates = {}
        # Every runtime with deal sets (the platform's way); the first one also with the
        # one-process duplicate matches of before, side by side.
        runs = [(runtime, "sets") for runtime in runtimes] + [(runtimes[0], "one-match")]
        for runtime, scheme in runs:
            print(f"-- bot containers with the {runtime} runtime, duplicate deals as {scheme}")
            logs = Path(data_dir) / f"{runtime}-{scheme}"
            logs.mkdir()
            with_runtime = {**env, "CUCUMBERS_SANDBOX_RUNTIME": runtime}
            rates[(runtime, scheme)] = throughput(
                args.matches, args.concurrency, with_runtime, logs, scheme
            ).per_hour
        first = rates[(runtimes[0], "sets")]
        for (runtime, scheme), per_hour in rates.items():
            verdict = "meets" if per_hour >= TARGET_PER_HOUR else "below"
            print(
                f"rated games per hour, {runtime}, {scheme}: {per_hour:,.0f} ({verdict} the"
                f" {TARGET_PER_HOUR:,} target, {per_hour / TARGET_PER_HOUR:.2f}x;"
                f" {per_hour / first:.2f}x of {runtimes[0]} with deal sets)"
            )
        print(f"load average at the end: {load_average()}")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
