# mypy: disable-error-code="import-untyped,import-not-found"
# (the Django project is imported from platform/ at run time, outside mypy's path)
"""The fault campaign: a local stack under faults, and the invariants that must hold.

A whole pipeline of real processes on this machine: the platform's worker (recording), beat
(the ladder's top-up, the reaper), two arena workers (the Docker sandbox, one match at a
time each), PostgreSQL, Redis and the Docker engine. Every process reaches PostgreSQL, Redis
and the engine through a relay of this script's (``tests/relay.py``), so that an outage is
one cut: its connections closed, new ones refused, as a server that dies does from its
clients' side, without touching the machine's own servers. Bots are uploaded one after
another all along (the SDK's starter, which never faults) while the ladder plays among the
house bots, and the faults come one at a time:

- an arena worker killed with SIGKILL in the middle of a match, then started again;
- an arena worker stopped (SIGSTOP) for 20 s, then continued;
- Redis gone for 10 s; PostgreSQL gone for 15 s; one worker's Docker engine gone for 20 s;
- the platform's worker killed with SIGKILL while it records, then started again;
- poison (garbage, wrong JSON, a pickle, an oversized body) pushed onto every queue.

After each fault the pipeline gets a few minutes to settle (no uploads meanwhile; beat
goes on topping the ladder up), then the invariants are read
from the database, the engine and the staging folder, counted over everything so far:

- **lost**: a match queued before the settling began and still not ended at its end, or an
  upload with no verdict (every version must reach one);
- **doubled**: a rated game with more rating rows than seats, a game recorded twice;
- **misattributed**: a fault charged to a bot (none of these bots ever faults: any fault in
  a recorded game, or a rejected upload, is the infrastructure's, wrongly charged);
- **stuck**: a match running past its lease;
- **orphans**: sandbox containers or staged bot files of runners that are gone;
- and how many matches needed more than one attempt (work counts; waiting does not).

Needs PostgreSQL and Redis (``make services``) and Docker (``make sandbox``). Uses a
database of its own (``cucumbers_campaign``, recreated) and Redis database 9.

    python benchmarks/fault_campaign.py [--settle 300] [--gap 15] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

from pipeline import FAST_BUILTINS, REPO, fresh_database, house_bots_playing, load_average

from arena.parent_death import end_with

sys.path.insert(0, str(REPO))
from tests.relay import EngineProxy, TcpRelay

DB_NAME = "cucumbers_campaign"
PG_HOST, PG_PORT = "127.0.0.1", 5432
REDIS_HOST, REDIS_PORT, REDIS_DB = "127.0.0.1", 6379, 9
ARENA_HOSTS = ("campaign-a", "campaign-b")
#: The largest message a worker takes, in this campaign (a poison body is twice as big).
MAX_MESSAGE_BYTES = 1024 * 1024
#: The pipeline's clocks, shorter than the defaults so that each recovery fits in a
#: settling (a lost worker's message comes back after the visibility timeout, its match
#: after the lease), yet long enough for a 5-game match on a machine loaded many times over
#: (a match of a few seconds took 50 s at a load of 12 on 2 cores).
CLOCKS = {
    "CELERY_VISIBILITY_TIMEOUT": "200",
    "CELERY_RESTORE_INTERVAL": "10",
    "CELERY_SOFT_TIME_LIMIT": "150",
    "CELERY_HARD_TIME_LIMIT": "180",
    "MATCH_LEASE_SECONDS": "190",
    "MATCH_REAPER_SECONDS": "10",
    "MATCH_RETRY_SECONDS": "2",
    "MATCH_UNSTARTED_SECONDS": "30",
    "LADDER_TOP_UP_SECONDS": "5",
    "LADDER_QUEUE_TARGET": "4",
    "CELERY_MAX_MESSAGE_BYTES": str(MAX_MESSAGE_BYTES),
}


@dataclass
class Stack:
    """The relays and the processes of the campaign's stack."""

    data_dir: Path
    pg: TcpRelay
    redis: TcpRelay
    engines: dict[str, EngineProxy]
    env: dict[str, str] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    #: How many times each process was started (its log is appended to).
    started: dict[str, int] = field(default_factory=dict)

    @property
    def logs(self) -> Path:
        return self.data_dir / "logs"

    def relayed(self) -> dict[str, str]:
        """The platform's settings, its servers reached through the relays."""
        return self.env | {
            "DATABASE_URL": f"postgres://cucumbers:cucumbers@127.0.0.1:{self.pg.port}/{DB_NAME}",
            "REDIS_URL": f"redis://127.0.0.1:{self.redis.port}/{REDIS_DB}",
        }

    def start(self, name: str) -> None:
        """Start (or start again) the process ``name``: platform, beat or an arena host."""
        env = {**os.environ, **self.relayed(), "LOG_LEVEL": "INFO"}
        if name == "platform":
            argv = [sys.executable, "-m", "celery", "-A", "web", "worker", "--concurrency=2"]
            argv += ["--loglevel=INFO", "--without-gossip", "-n", "platform@%h"]
        elif name == "beat":
            argv = [sys.executable, "-m", "celery", "-A", "web", "beat", "--loglevel=INFO"]
        else:
            from arena.worker import worker_environment

            keys = self.data_dir / "keys"
            env = worker_environment(env) | {
                "ARENA_PLATFORM_KEY_FILE": str(keys / "platform.pub"),
                "ARENA_HOST_KEY_FILE": str(keys / name),
                "ARENA_HOST_NAME": name,
                "DOCKER_HOST": self.engines[name].docker_host,
                "CUCUMBERS_SANDBOX_STAGING_DIR": str(self.data_dir / "staging"),
            }
            argv = [sys.executable, "-m", "arena", "worker", "--concurrency=1", f"--name={name}"]
        log = self.logs / f"{name}.log"
        campaign = os.getpid()
        with log.open("ab") as out:
            # A session of its own (a fault signals its whole group); it ends with this
            # script, however the script ends.
            self.processes[name] = subprocess.Popen(
                argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=lambda: end_with(campaign),
            )  # fmt: skip
        times = self.started.get(name, 0)
        if name != "beat" and not wait(
            lambda: log.read_text(errors="replace").count("ready.") > times, 120
        ):
            raise SystemExit(f"{name} did not start; see {log}")
        self.started[name] = times + 1

    def kill(self, name: str, signum: int = signal.SIGKILL) -> None:
        """Signal the whole process group of ``name`` (its pool and beat with it)."""
        with suppress(ProcessLookupError):
            os.killpg(self.processes[name].pid, signum)
        if signum in (signal.SIGKILL, signal.SIGTERM):
            self.processes[name].wait(timeout=60)

    def stop_all(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def wait(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.5)
    return False


def setup(data_dir: Path) -> Stack:
    """The database, the keys and the house bots, then the stack's processes."""
    from arena.signing import ensure_key_pair

    keys = data_dir / "keys"
    ensure_key_pair(keys / "platform")
    (data_dir / "logs").mkdir()
    (data_dir / "staging").mkdir(mode=0o700)
    env = {
        "ARENA_SIGNING_KEY_FILE": str(keys / "platform"),
        "DJANGO_SETTINGS_MODULE": "web.settings",
        "DEBUG": "0",
        "SECRET_KEY": "campaign-only",
        "DATABASE_URL": f"postgres://cucumbers:cucumbers@{PG_HOST}:{PG_PORT}/{DB_NAME}",
        "REDIS_URL": f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DB}",
        "DATA_DIR": str(data_dir),
        "SANDBOX": "docker",
        "MATCH_GAMES": "5",
        "LADDER_MIN_PLAYERS": "4",
        "LADDER_MAX_PLAYERS": "4",
        "HOUSE_EVENTS": "0",
        "LOG_LEVEL": "WARNING",  # this process; its workers log at INFO
        "PYTHONPATH": os.pathsep.join([str(REPO / "platform"), str(REPO)]),
        **CLOCKS,
    }
    fresh_database(DB_NAME)
    os.environ.update(env)  # this process talks to the servers directly, never relayed
    sys.path.insert(0, str(REPO / "platform"))
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    from web.arena_hosts.hosts import add_host

    call_command("migrate", verbosity=0)
    for name in ARENA_HOSTS:
        add_host(name, ensure_key_pair(keys / name))
    redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=REDIS_DB).flushdb()
    house_bots_playing(list(FAST_BUILTINS))
    stack = Stack(
        data_dir,
        pg=TcpRelay(PG_HOST, PG_PORT),
        redis=TcpRelay(REDIS_HOST, REDIS_PORT),
        engines={name: EngineProxy(data_dir / f"{name}.sock") for name in ARENA_HOSTS},
        env=env,
    )
    for name in ("platform", "beat", *ARENA_HOSTS):
        stack.start(name)
    return stack


# --- Traffic -------------------------------------------------------------------------------


class Uploads:
    """New bots uploaded one after another, ``gap`` seconds apart, as the faults go on."""

    def __init__(self, gap: float) -> None:
        self.gap = gap
        self.count = 0
        self._next = 0.0
        self._source = (REPO / "sdk/src/cucumbers/templates/starter.py").read_bytes()

    def due(self) -> None:
        from django.contrib.auth.models import User

        from web.bots.uploads import upload_version

        if time.monotonic() < self._next:
            return
        self._next = time.monotonic() + self.gap
        self.count += 1
        owner = User.objects.create_user(f"author{self.count}")
        upload_version(
            owner, "starter.py", self._source, new_bot_name=f"new{self.count}",
            game="five-cucumbers",
        )  # fmt: skip

    def wait(self, condition: Callable[[], bool], seconds: float) -> bool:
        """Until ``condition`` holds (at most ``seconds``), uploading when one is due."""

        def uploading() -> bool:
            self.due()
            return condition()

        return wait(uploading, seconds)

    def run_for(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.due()
            time.sleep(0.5)


# --- Faults --------------------------------------------------------------------------------


def running_on(host: str) -> bool:
    from web.matches.models import Match, MatchStatus

    return Match.objects.filter(status=MatchStatus.RUNNING, arena_host=host).exists()


def kill_arena_mid_match(stack: Stack, uploads: Uploads) -> str:
    host = ARENA_HOSTS[0]
    if not uploads.wait(lambda: running_on(host), 120):
        return "no match started on it within 120 s: killed idle"
    stack.kill(host)
    uploads.run_for(5)
    stack.start(host)
    return "killed mid-match, started again"


def stop_arena(stack: Stack, uploads: Uploads) -> str:
    host = ARENA_HOSTS[1]
    playing = uploads.wait(lambda: running_on(host), 120)
    stack.kill(host, signal.SIGSTOP)
    uploads.run_for(20)
    stack.kill(host, signal.SIGCONT)
    return "stopped 20 s mid-match, continued" if playing else "no match on it: stopped idle 20 s"


def redis_down(stack: Stack, uploads: Uploads) -> str:
    port = stack.redis.port
    stack.redis.cut()
    uploads.run_for(10)
    stack.redis = TcpRelay(REDIS_HOST, REDIS_PORT, port)  # back, at the same address
    return "cut 10 s"


def postgres_down(stack: Stack, uploads: Uploads) -> str:
    port = stack.pg.port
    stack.pg.cut()
    time.sleep(15)  # this process's uploads go to PostgreSQL directly: none meanwhile
    stack.pg = TcpRelay(PG_HOST, PG_PORT, port)
    return "cut 15 s"


def engine_down(stack: Stack, uploads: Uploads) -> str:
    host = ARENA_HOSTS[0]
    proxy = stack.engines[host]
    proxy.cut()
    uploads.run_for(20)
    stack.engines[host] = EngineProxy(proxy.path)
    return f"{host}'s engine cut 20 s"


def kill_platform_recording(stack: Stack, uploads: Uploads) -> str:
    from web.matches.models import Match, MatchStatus

    finished = Match.objects.filter(status=MatchStatus.FINISHED).count()
    # The moment a report is being recorded: the next match to finish.
    uploads.wait(lambda: Match.objects.filter(status=MatchStatus.FINISHED).count() > finished, 120)
    stack.kill("platform")
    uploads.run_for(5)
    stack.start("platform")
    return "killed as a report was recorded, started again"


def poison(stack: Stack, uploads: Uploads) -> Callable[[], str]:
    import redis

    from arena.broker import ARENA_QUEUES, PLATFORM_QUEUES

    client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=REDIS_DB)
    bodies = [
        b"x",
        b'{"not": "a celery message"}',
        pickle.dumps({"body": "pickled"}),
        b'{"body": "' + b"A" * (2 * MAX_MESSAGE_BYTES) + b'"}',  # oversized
    ]
    queues = (*ARENA_QUEUES, *PLATFORM_QUEUES)
    before = poison_dropped(stack)
    for queue in queues:
        for body in bodies:
            client.lpush(queue, body)
    uploads.run_for(20)

    def outcome() -> str:  # after the settling: a worker meets a body when it reaches it
        exited = [name for name, p in stack.processes.items() if p.poll() is not None]
        dropped = poison_dropped(stack) - before
        return f"{dropped} of {len(queues) * len(bodies)} poison bodies dropped and logged; " + (
            f"exited: {', '.join(exited)}" if exited else "every process still running"
        )

    return outcome


def poison_dropped(stack: Stack) -> int:
    """Poison messages the workers logged dropping (``event=broker.poison``)."""
    return sum(
        log.read_text(errors="replace").count("event=broker.poison")
        for log in stack.logs.glob("*.log")
    )


#: Each injects its fault and says what it did (a function: said after the settling).
FAULTS: dict[str, Callable[[Stack, Uploads], str | Callable[[], str]]] = {
    "arena-kill": kill_arena_mid_match,
    "arena-stop": stop_arena,
    "redis": redis_down,
    "postgres": postgres_down,
    "engine": engine_down,
    "platform-kill": kill_platform_recording,
    "poison": poison,
}


# --- Invariants ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Invariants:
    matches: int
    finished: int
    failed: int
    uploads: int
    lost: int
    doubled: int
    misattributed: int
    stuck: int
    orphans: int
    retried: int

    HEADER = (
        f"{'checkpoint':26} {'matches':>7} {'done':>5} {'failed':>6} {'uploads':>7}"
        f" {'lost':>4} {'doubled':>7} {'misattr.':>8} {'stuck':>5} {'orphans':>7}"
        f" {'retried':>7}"
    )

    def row(self, name: str) -> str:
        return (
            f"{name:26} {self.matches:>7} {self.finished:>5} {self.failed:>6} {self.uploads:>7}"
            f" {self.lost:>4} {self.doubled:>7} {self.misattributed:>8} {self.stuck:>5}"
            f" {self.orphans:>7} {self.retried:>7}"
        )


def settle(uploads: Uploads, seconds: float) -> Invariants:
    """Let what was queued before now end (uploads go on), then read the invariants."""
    from django.utils import timezone

    from web.bots.house import HOUSE_USERNAME
    from web.bots.models import BotVersion, VersionStatus
    from web.matches.models import Match, MatchStatus

    cutoff = timezone.now()
    ongoing = (MatchStatus.QUEUED, MatchStatus.RUNNING)
    pending = (VersionStatus.QUEUED, VersionStatus.VALIDATING)

    def settled() -> bool:
        return (
            not Match.objects.filter(created_at__lte=cutoff, status__in=ongoing).exists()
            and not BotVersion.objects.filter(created_at__lte=cutoff, status__in=pending)
            .exclude(bot__owner__username=HOUSE_USERNAME)
            .exists()
        )

    wait(settled, seconds)  # no uploads meanwhile: what was queued drains
    return invariants(cutoff)


def invariants(cutoff: object) -> Invariants:
    from django.db.models import Count
    from django.utils import timezone

    from web.bots.house import HOUSE_USERNAME
    from web.bots.models import BotVersion, VersionStatus
    from web.matches.models import Match, MatchGame, MatchStatus, RatingChange

    ended = (MatchStatus.FINISHED, MatchStatus.FAILED)
    before = Match.objects.filter(created_at__lte=cutoff)
    versions = BotVersion.objects.exclude(bot__owner__username=HOUSE_USERNAME)
    waiting = versions.filter(
        created_at__lte=cutoff, status__in=(VersionStatus.QUEUED, VersionStatus.VALIDATING)
    )
    lost = before.exclude(status__in=ended).count() + waiting.count()
    rows = dict(
        RatingChange.objects.values_list("match").annotate(n=Count("id")).values_list("match", "n")
    )
    doubled = 0
    for match in Match.objects.filter(pk__in=rows).annotate(
        seats=Count("participants", distinct=True), played=Count("games", distinct=True)
    ):
        doubled += rows[match.pk] > match.seats * match.played
    doubled += (
        MatchGame.objects.values("match", "number").annotate(n=Count("id")).filter(n__gt=1).count()
    )
    faulted = sum(1 for faults in MatchGame.objects.values_list("faults", flat=True) if faults)
    rejected = versions.filter(status=VersionStatus.REJECTED).count()
    lease = float(CLOCKS["MATCH_LEASE_SECONDS"])
    stuck = Match.objects.filter(
        status=MatchStatus.RUNNING, started_at__lt=timezone.now() - timedelta(seconds=lease)
    ).count()
    return Invariants(
        matches=Match.objects.count(),
        finished=Match.objects.filter(status=MatchStatus.FINISHED).count(),
        failed=Match.objects.filter(status=MatchStatus.FAILED).count(),
        uploads=versions.count(),
        lost=lost,
        doubled=doubled,
        misattributed=faulted + rejected,
        stuck=stuck,
        orphans=orphans(),
        retried=Match.objects.filter(attempts__gt=1).count(),
    )


def orphans() -> int:
    """Sandbox containers and staged bot folders whose runner is gone (the workers reap
    what their dead runners left at their next start)."""
    from arena.sandbox import labels
    from arena.sandbox.container import engine_client, staging_owner
    from cucumbers.runners.reaper import read_proc

    staging = Path(os.environ["DATA_DIR"]) / "staging"
    found = engine_client().api.containers(all=True, filters={"label": f"{labels.SANDBOX}=1"})
    dead = sum(
        1
        for c in found
        # This campaign's (its bots' files are staged in its folder), not another run's on
        # the same engine, and its runner gone.
        if any(str(m.get("Source", "")).startswith(str(staging)) for m in c.get("Mounts") or [])
        and labels.runner_is_alive(c.get("Labels") or {}) is False
    )
    for name in os.listdir(staging):
        owner = staging_owner(name)
        info = read_proc(owner[0]) if owner else None
        dead += owner is not None and (info is None or not info.alive or info.start != owner[1])
    return dead


def charged_faults() -> list[str]:
    """The faults charged to bots, which never fault: each is a misattribution."""
    from web.matches.models import MatchGame

    counted = Counter[str]()
    for match, faults in MatchGame.objects.values_list("match_id", "faults"):
        for fault in faults:
            counted[f"match {match}: {fault.get('kind')}: {fault.get('detail')}"] += 1
    return [f"{n} × {what}" for what, n in counted.items()]


def failures() -> list[str]:
    from django.db.models import Count

    from web.matches.models import Match, MatchStatus

    return [
        f"{row['n']} × {row['failure_reason'][:150]}"
        for row in Match.objects.filter(status=MatchStatus.FAILED)
        .values("failure_reason")
        .annotate(n=Count("id"))
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settle", type=float, default=420.0, help="seconds to settle at most")
    parser.add_argument("--gap", type=float, default=30.0, help="seconds between uploads")
    parser.add_argument("--calm", type=float, default=30.0, help="seconds of traffic first")
    parser.add_argument("--only", help=f"some of the faults: {', '.join(FAULTS)}")
    parser.add_argument("--keep", action="store_true", help="keep the data folder and logs")
    args = parser.parse_args()
    chosen = args.only.split(",") if args.only else list(FAULTS)
    unknown = [name for name in chosen if name not in FAULTS]
    if unknown:
        parser.error(f"--only: unknown fault(s) {', '.join(unknown)}; known: {', '.join(FAULTS)}")
    # SIGTERM (a Ctrl-C's sibling) stops the stack as the end of the run does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    data_dir = Path(tempfile.mkdtemp(prefix="cucumbers-campaign-"))
    print(f"fault campaign ({time.strftime('%Y-%m-%d %H:%M')}, load {load_average()});"
          f" logs in {data_dir / 'logs'}", flush=True)  # fmt: skip
    stack = setup(data_dir)
    uploads = Uploads(args.gap)
    broken = False
    try:
        print(Invariants.HEADER, flush=True)
        uploads.run_for(args.calm)
        result = settle(uploads, args.settle)
        print(result.row("calm"), flush=True)
        for name in chosen:
            what = FAULTS[name](stack, uploads)
            result = settle(uploads, args.settle)
            said = what() if callable(what) else what
            print(result.row(name) + f"   ({said})", flush=True)
            broken |= bool(result.lost + result.doubled + result.misattributed + result.stuck)
        for line in failures():
            print(f"  failed: {line}")
        for line in charged_faults():
            print(f"  charged to a bot: {line}")
        print(f"load at the end: {load_average()}")
    finally:
        stack.stop_all()
        if not args.keep:
            import shutil

            shutil.rmtree(data_dir, ignore_errors=True)
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
