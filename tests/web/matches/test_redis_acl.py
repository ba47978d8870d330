"""The broker's Redis users (arena/redis_acl.py) on a Redis server of the test's own, loaded
with the shipped ACL file: the platform's worker as ``platform`` and an arena worker as
``arena`` play matches and compute a move review end to end, a job whose arena worker was
killed is delivered again, and Redis refuses nothing they do (its ``ACL LOG`` stays empty);
everything an arena host must not do is refused (NOPERM), and the cache's user reaches
``cache:*`` and nothing else."""

from __future__ import annotations

import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.broker import (
    MAINTENANCE_QUEUE,
    PLAY_TASK,
    REPORTS_QUEUE,
    ROLE_KEYS,
    URGENT_QUEUE,
    BrokerSettings,
    Role,
    queue_for,
)
from arena.redis_acl import acl_file, parse_version
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.arena_helpers import SLOW_BOT, make_active
from tests.web.matches.celery_worker import (
    AS_SHIPPED,
    REPO,
    arena_env,
    arena_worker,
    kill,
    platform_broker,
    platform_env,
    platform_worker,
    wait_for,
)
from tests.web.matches.private_redis import PrivateRedis
from web.bots.models import BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.kinds.ladder import queue_ladder_matches
from web.reviews.asking import ask_review
from web.reviews.models import Review, ReviewStatus

ADMIN = "acl-test-admin"


@dataclass
class AclRedis:
    """The private server and a URL per user (the broker is database 0, the cache 1)."""

    server: PrivateRedis
    passwords: dict[str, str]

    def url(self, user: str, db: int = 0) -> str:
        return self.server.url_for(user, self.passwords[user], db)

    def client(self, user: str, db: int = 0) -> redis.Redis:
        return redis.Redis.from_url(self.url(user, db), socket_timeout=5)

    def denials(self) -> list[dict[str, Any]]:
        log: list[dict[str, Any]] = self.client(ADMIN).acl_log()
        return log


def server_version() -> tuple[int, int]:
    """``redis-server --version``: "Redis server v=7.0.15 sha=..."."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (make services)")
    said = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    return parse_version(said.stdout.split("v=", 1)[1].split()[0])


@pytest.fixture
def acl_redis(tmp_path: Path) -> Iterator[AclRedis]:
    passwords = {user: secrets.token_urlsafe(24) for user in ("platform", "arena", "cache")}
    passwords[ADMIN] = secrets.token_urlsafe(24)
    aclfile = tmp_path / "users.acl"
    # The shipped users, for the Redis at hand, and one of the test's own to read the ACL
    # log with.
    text = (
        acl_file(passwords, server_version()) + f"user {ADMIN} on >{passwords[ADMIN]} ~* &* +@all\n"
    )
    aclfile.write_text(text)
    # DEBUG enabled, so that what refuses it to a user is the ACL, not the server's default.
    server = PrivateRedis(tmp_path, aclfile, ("--enable-debug-command", "yes"))
    server.start()
    yield AclRedis(server, passwords)
    server.stop()


def assert_nothing_refused(acl: AclRedis) -> None:
    refused = [
        (entry["username"], entry["reason"], entry["object"], entry["context"])
        for entry in acl.denials()
    ]
    assert refused == []


@pytest.mark.django_db(transaction=True)
def test_the_platform_and_an_arena_worker_play_matches_and_a_review_as_their_users_refused_nothing(
    tmp_path: Path, settings: Any, acl_redis: AclRedis
) -> None:
    settings.LADDER_DUPLICATE = False  # one match, not a deal set
    settings.MATCH_GAMES = 2
    platform_url, arena_url = acl_redis.url("platform"), acl_redis.url("arena")
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    # As docker-compose.yml runs it: with the scheduler and Celery's worker events; the
    # reaper runs often (sending to the maintenance queue), the ladder's top-up not at all.
    env = platform_env(platform_url, MATCH_REAPER_SECONDS="3", LADDER_TOP_UP_SECONDS="3600")
    with (
        platform_broker(platform_url),
        platform_worker(env, platform_log, AS_SHIPPED),
        arena_worker(arena_env("process", arena_url), arena_log),
    ):
        users = [UserFactory(username=name) for name in ("ann", "bob")]
        for user in users:
            upload_version(user, "b.py", GOOD_BOT, new_bot_name=user.username, game="concombre")

        def all_active() -> bool:
            statuses = set(BotVersion.objects.values_list("status", flat=True))
            return statuses == {VersionStatus.ACTIVE}

        wait_for(all_active, 120, "validation of the uploads", arena_log, platform_log)
        (ladder,) = queue_ladder_matches("concombre", 1)
        wait_for(
            lambda: Match.objects.get(pk=ladder.pk).status == MatchStatus.FINISHED,
            120,
            "the ladder match",
            arena_log,
            platform_log,
        )
        # A move review of ann's bot: the review queue and its signed result, as the users.
        settings.REVIEW_DEALS = 20
        ladder.refresh_from_db()
        participant = ladder.participants.get(bot__owner=users[0]).index
        review, sent = ask_review(users[0], ladder, participant)
        assert sent
        wait_for(
            lambda: Review.objects.get(pk=review.pk).status == ReviewStatus.DONE,
            120,
            "the move review",
            arena_log,
            platform_log,
        )
        # The arena worker's health check, as the arena user.
        ping = subprocess.run(
            [
                *[sys.executable, "-m", "celery", "-A", "arena.worker", "inspect", "ping"],
                *["-d", "arena@test-arena", "--timeout", "10"],
            ],
            cwd=REPO,
            env={**arena_env("process", arena_url), "PYTHONPATH": str(REPO)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert ping.returncode == 0 and "pong" in ping.stdout, ping.stdout + ping.stderr
        # /health/ready counts the queues as the platform.
        from web.pipeline.dispatch import queue_depths

        broker = BrokerSettings.from_env({"REDIS_URL": platform_url}).celery(Role.PLATFORM)
        settings.CELERY_BROKER_URL = platform_url
        settings.CELERY_BROKER_TRANSPORT_OPTIONS = broker["broker_transport_options"]
        assert queue_depths() is not None
        wait_for(
            lambda: "pipeline.reap_matches" in platform_log.read_text(),
            30,
            "a periodic job through the maintenance queue",
            platform_log,
        )
    ladder.refresh_from_db()
    assert (ladder.worker, ladder.attempts) == ("test-arena", 1)
    assert RatingChange.objects.filter(match=ladder).count() == 2 * ladder.games_planned
    assert_nothing_refused(acl_redis)


@pytest.mark.django_db(transaction=True)
def test_a_job_whose_arena_worker_was_killed_is_delivered_again_under_the_acl(
    tmp_path: Path, settings: Any, acl_redis: AclRedis
) -> None:
    settings.LADDER_DUPLICATE = False  # one match, not a deal set
    settings.MATCH_GAMES = 20
    settings.LADDER_DEBUT_GAMES = 20  # new bots: a debut table
    for name in ("dan", "eve"):
        # 20 ms a move: long enough to be killed in the middle on a fast, idle machine too.
        make_active(name, source=SLOW_BOT)
    timeouts = {"CELERY_VISIBILITY_TIMEOUT": "4", "CELERY_RESTORE_INTERVAL": "1"}
    platform_url, arena_url = acl_redis.url("platform"), acl_redis.url("arena")
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with (
        platform_broker(platform_url, **timeouts),
        platform_worker(platform_env(platform_url, **timeouts), platform_log),
    ):
        with arena_worker(arena_env("process", arena_url, **timeouts), arena_log) as worker:
            (match,) = queue_ladder_matches("concombre", 1)
            wait_for(
                lambda: Match.objects.get(pk=match.pk).status == MatchStatus.RUNNING,
                60,
                "the match to start",
                arena_log,
            )
            kill(worker, signal.SIGKILL)
        # The job waits among the arena's unacknowledged messages (or, once older than the
        # visibility timeout, back on its queue), never among the platform's.
        admin = acl_redis.client(ADMIN)
        waiting_on = queue_for(match.kind, debut=match.debut)  # its new bots' debut
        held = admin.hvals(ROLE_KEYS[Role.ARENA].unacked) + admin.lrange(waiting_on, 0, -1)
        assert [PLAY_TASK.encode() in message for message in held] == [True]
        platforms = admin.hvals(ROLE_KEYS[Role.PLATFORM].unacked)
        assert not any(PLAY_TASK.encode() in message for message in platforms)
        with arena_worker(arena_env("process", arena_url, **timeouts), arena_log):
            wait_for(
                lambda: Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED,
                150,
                "the match played again",
                arena_log,
                platform_log,
            )
    match.refresh_from_db()
    assert match.attempts == 1  # the same job, delivered again
    assert RatingChange.objects.filter(match=match).count() == 2 * match.games_planned
    assert_nothing_refused(acl_redis)


#: What an arena host must never do, each one command of its user.
ARENA_REFUSED: list[tuple[str, Callable[[redis.Redis], object]]] = [
    ("read a cache key", lambda r: r.get("cache:1:throttle_anon_1.2.3.4")),
    ("write a cache key", lambda r: r.set("cache:1:throttle_anon_1.2.3.4", b"pickle")),
    ("reach the cache's database", lambda r: r.select(1)),
    ("push onto maintenance", lambda r: r.lpush(MAINTENANCE_QUEUE, b"{}")),
    ("take from maintenance", lambda r: r.brpop([MAINTENANCE_QUEUE], timeout=1)),
    ("read maintenance", lambda r: r.lrange(MAINTENANCE_QUEUE, 0, -1)),
    ("read a report", lambda r: r.lrange(REPORTS_QUEUE, 0, -1)),
    ("take a report", lambda r: r.rpop(REPORTS_QUEUE)),
    ("take a report, blocking", lambda r: r.brpop([REPORTS_QUEUE], timeout=1)),
    ("delete the reports", lambda r: r.delete(REPORTS_QUEUE)),
    ("read the platform's unacked", lambda r: r.hgetall(ROLE_KEYS[Role.PLATFORM].unacked)),
    ("restore one of them", lambda r: r.hget(ROLE_KEYS[Role.PLATFORM].unacked, "tag")),
    ("list them", lambda r: r.zrange(ROLE_KEYS[Role.PLATFORM].unacked_index, 0, -1)),
    ("hold their lock", lambda r: r.set(ROLE_KEYS[Role.PLATFORM].unacked_mutex, b"x")),
    ("rewrite a binding", lambda r: r.sadd("_kombu.binding.reports", b"x")),
    ("read a binding", lambda r: r.smembers("_kombu.binding.urgent")),
    ("FLUSHALL", lambda r: r.flushall()),
    ("FLUSHDB", lambda r: r.flushdb()),
    ("CONFIG GET", lambda r: r.config_get("*")),
    ("CONFIG SET", lambda r: r.config_set("appendonly", "no")),
    ("KEYS", lambda r: r.keys("*")),
    ("SCAN", lambda r: r.scan(0)),
    ("ACL LIST", lambda r: r.acl_list()),
    ("ACL SETUSER", lambda r: r.acl_setuser("arena", enabled=True, commands=["+@all"])),
    ("DEBUG", lambda r: r.execute_command("DEBUG", "SLEEP", "0")),
    ("MONITOR", lambda r: r.execute_command("MONITOR")),
    ("SHUTDOWN", lambda r: r.execute_command("SHUTDOWN", "NOSAVE")),
    ("MIGRATE", lambda r: r.execute_command("MIGRATE", "h", 1, "urgent", 0, 1)),
    ("RESTORE", lambda r: r.execute_command("RESTORE", "urgent", 0, b"x")),
    ("DUMP", lambda r: r.execute_command("DUMP", "reports")),
    ("RENAME the reports", lambda r: r.rename(REPORTS_QUEUE, URGENT_QUEUE)),
    ("EVAL", lambda r: r.eval("return 1", 0)),
    ("SCRIPT FLUSH", lambda r: r.script_flush()),
    ("CLIENT LIST", lambda r: r.client_list()),
    ("CLIENT KILL", lambda r: r.client_kill_filter(user="platform")),
    ("REPLICAOF", lambda r: r.execute_command("REPLICAOF", "evil.example", 6379)),
    ("BGSAVE", lambda r: r.bgsave()),
    ("SWAPDB", lambda r: r.swapdb(0, 1)),
    ("publish on the platform's control", lambda r: r.publish("/0.platform.pidbox", b"x")),
    ("publish the platform's events", lambda r: r.publish("/0.celeryev/worker.x", b"x")),
    ("publish elsewhere", lambda r: r.publish("anything", b"x")),
    ("write any other key", lambda r: r.set("urgent-not-a-queue", b"x")),
]


@pytest.mark.parametrize(
    "attempt", [attempt for _, attempt in ARENA_REFUSED], ids=[name for name, _ in ARENA_REFUSED]
)
def test_an_arena_host_is_refused_what_is_not_its_own(
    acl_redis: AclRedis, attempt: Callable[[redis.Redis], object]
) -> None:
    admin = acl_redis.client(ADMIN)
    admin.lpush(REPORTS_QUEUE, b"a report")
    admin.hset(ROLE_KEYS[Role.PLATFORM].unacked, "tag", b"a message")
    admin.set("cache:1:throttle_anon_1.2.3.4", b"[]")
    with pytest.raises(redis.exceptions.NoPermissionError):
        attempt(acl_redis.client("arena"))
    # Nothing of it happened.
    assert admin.lrange(REPORTS_QUEUE, 0, -1) == [b"a report"]
    assert admin.get("cache:1:throttle_anon_1.2.3.4") == b"[]"
    assert admin.hgetall(ROLE_KEYS[Role.PLATFORM].unacked) == {b"tag": b"a message"}


def test_a_script_runs_with_its_callers_rights_only(acl_redis: AclRedis) -> None:
    # The arena user may load scripts (kombu's and redis-py's lock need them), but what a
    # script calls is checked against the user's rules, declared keys or not.
    admin, arena = acl_redis.client(ADMIN), acl_redis.client("arena")
    admin.set("cache:x", b"secret")
    sha = arena.script_load("return redis.call('GET', 'cache:x')")
    with pytest.raises(redis.exceptions.ResponseError, match="can't access at least one of"):
        arena.evalsha(sha, 0)
    with pytest.raises(redis.exceptions.NoPermissionError):
        arena.evalsha(sha, 1, "cache:x")
    sha = arena.script_load("return redis.call('FLUSHALL')")
    with pytest.raises(redis.exceptions.ResponseError, match="can't run this command"):
        arena.evalsha(sha, 0)
    assert admin.get("cache:x") == b"secret"


def test_an_arena_host_takes_jobs_and_sends_reports_without_reading_them(
    acl_redis: AclRedis,
) -> None:
    admin, arena = acl_redis.client(ADMIN), acl_redis.client("arena")
    admin.lpush(URGENT_QUEUE, b"a job")
    assert arena.brpop([URGENT_QUEUE], timeout=1) == (URGENT_QUEUE.encode(), b"a job")
    assert arena.lpush(REPORTS_QUEUE, b"a report") == 1
    assert admin.lrange(REPORTS_QUEUE, 0, -1) == [b"a report"]


CACHE_REFUSED: list[tuple[str, Callable[[redis.Redis], object]]] = [
    ("read a queue", lambda r: r.lrange(URGENT_QUEUE, 0, -1)),
    ("push a job", lambda r: r.lpush(URGENT_QUEUE, b"{}")),
    ("take a job", lambda r: r.brpop([URGENT_QUEUE], timeout=1)),
    ("push a report", lambda r: r.lpush(REPORTS_QUEUE, b"{}")),
    ("read unacked", lambda r: r.hgetall(ROLE_KEYS[Role.PLATFORM].unacked)),
    ("write a key without the prefix", lambda r: r.set("throttle", b"x")),
    ("read a key without the prefix", lambda r: r.get(URGENT_QUEUE)),
    ("publish", lambda r: r.publish("/0.platform.pidbox", b"x")),
    ("FLUSHDB", lambda r: r.flushdb()),
    ("FLUSHALL", lambda r: r.flushall()),
    ("KEYS", lambda r: r.keys("*")),
    ("CONFIG GET", lambda r: r.config_get("*")),
    ("EVAL", lambda r: r.eval("return 1", 0)),
    ("ACL LIST", lambda r: r.acl_list()),
]


@pytest.mark.parametrize(
    "attempt", [attempt for _, attempt in CACHE_REFUSED], ids=[name for name, _ in CACHE_REFUSED]
)
def test_the_cache_user_is_refused_everything_but_cache_keys(
    acl_redis: AclRedis, attempt: Callable[[redis.Redis], object]
) -> None:
    admin = acl_redis.client(ADMIN)
    admin.lpush(URGENT_QUEUE, b"a job")
    cache = acl_redis.client("cache", db=1)
    cache.ping()
    with pytest.raises(redis.exceptions.NoPermissionError):
        attempt(cache)
    assert admin.lrange(URGENT_QUEUE, 0, -1) == [b"a job"]


def test_the_cache_user_does_what_djangos_redis_cache_does(acl_redis: AclRedis) -> None:
    from django.core.cache.backends.redis import RedisCache

    cache = RedisCache(acl_redis.url("cache", db=1), {"KEY_PREFIX": "cache"})
    cache.set("page", {"a": 1}, 60)
    assert cache.get("page") == {"a": 1}
    assert cache.add("count", 1, 60)
    assert cache.incr("count") == 2
    cache.set_many({"x": 1, "y": 2}, 60)
    assert cache.get_many(["x", "y"]) == {"x": 1, "y": 2}
    assert cache.touch("x", 10) and cache.has_key("y")
    cache.delete_many(["x", "y"])
    assert cache.get("x") is None
    assert_nothing_refused(acl_redis)


def test_a_connection_without_a_user_can_do_nothing(acl_redis: AclRedis) -> None:
    anonymous = redis.Redis.from_url(acl_redis.server.url, socket_timeout=5)
    with pytest.raises(redis.exceptions.AuthenticationError):
        anonymous.ping()
