"""Real workers for the pipeline tests, on Redis: the platform's worker (a subprocess on the
production settings, the test database, the test process's files and its signing key; it
serves reports and the periodic jobs) and an arena worker started with ``env -i``, whose
environment holds the broker URL, the sandbox choice, the Docker engine's address and its
keys (the platform's public key, an arena host's key registered in the test database), and
nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from arena.broker import BrokerSettings, Role
from arena.signing import ensure_key_pair, load_private_key, public_text

REPO = Path(__file__).resolve().parents[3]
#: A Redis database of its own, flushed before each test.
REDIS_URL = os.environ.get("CUCUMBERS_TEST_REDIS_URL", "redis://127.0.0.1:6379/7")
#: What the arena worker's environment may hold besides the broker (never the database's
#: address, the secret key or the platform's files).
ARENA_ONLY = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/nonexistent"}


def require_redis(url: str = REDIS_URL) -> str:
    """The broker URL once Redis answers (flushed); else skip, or fail under ``CI=true``."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        client.flushdb()
        client.close()
    except redis.RedisError as error:
        message = f"Redis is not available at {url} (make services): {error}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return url


@contextmanager
def platform_broker(url: str = REDIS_URL, **timeouts: str) -> Iterator[None]:
    """The test process's Celery app (the platform's) sends through Redis at ``url`` for the
    block, instead of its in-memory broker, so matches queued in the test reach workers."""
    from web.celery import app

    def fresh_pools() -> None:
        app._pool = None
        app.amqp._producer_pool = None

    conf = app.conf
    before = conf.broker_url, conf.broker_transport, conf.broker_transport_options
    options = BrokerSettings.from_env({"REDIS_URL": url, **timeouts}).celery(Role.PLATFORM)
    conf.broker_url = options["broker_url"]
    conf.broker_transport = options["broker_transport"]
    conf.broker_transport_options = options["broker_transport_options"]
    fresh_pools()
    try:
        yield
    finally:
        conf.broker_url, conf.broker_transport, conf.broker_transport_options = before
        fresh_pools()


def platform_env(url: str = REDIS_URL, **extra: str) -> dict[str, str]:
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "MATCH_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="web.settings",
        DEBUG="0",
        # One platform, one secret: the deals are keyed with it (DEAL_KEY), and a report
        # is checked against the job as the test process sent it.
        SECRET_KEY=settings.SECRET_KEY,
        DEAL_KEY=settings.DEAL_KEY,
        DATABASE_URL=(
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        ),
        DB_CONN_MAX_AGE="0",
        REDIS_URL=url,
        DATA_DIR=str(settings.DATA_DIR),
        ARENA_SIGNING_KEY_FILE=settings.ARENA_SIGNING_KEY_FILE,
        PYTHONPATH=os.pathsep.join([str(REPO / "platform"), str(REPO)]),
    )
    env.update(extra)
    return env


def platform_public_key() -> str:
    """The public key of the test session's platform key (``ARENA_SIGNING_KEY_FILE``)."""
    return public_text(load_private_key(settings.ARENA_SIGNING_KEY_FILE))


def host_keys(host: str = "test-arena") -> dict[str, str]:
    """An arena host's key settings: the platform's public key, and a key of the session
    for ``host`` (made on first use; :func:`arena_worker` registers it)."""
    path = Path(settings.DATA_DIR) / "keys" / host
    ensure_key_pair(path)
    return {
        "ARENA_PLATFORM_KEY": platform_public_key(),
        "ARENA_HOST_KEY_FILE": str(path),
        "ARENA_HOST_NAME": host,
    }


def register_host(env: dict[str, str]) -> None:
    """Register the arena host of ``env`` in the test database (idempotent)."""
    from web.arena_hosts.hosts import add_host

    public = Path(env["ARENA_HOST_KEY_FILE"] + ".pub").read_text().strip()
    add_host(env["ARENA_HOST_NAME"], public)


def arena_env(sandbox: str, url: str = REDIS_URL, **extra: str) -> dict[str, str]:
    """Everything the arena worker gets: the broker, the sandbox, its keys, and ``extra``."""
    env = {**ARENA_ONLY, "REDIS_URL": url, "SANDBOX": sandbox, **host_keys(), **extra}
    if "DOCKER_HOST" in os.environ and "DOCKER_HOST" not in env:
        env["DOCKER_HOST"] = os.environ["DOCKER_HOST"]
    return env


def _start(argv: list[str], env: dict[str, str] | None, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


#: The test's platform worker runs quiet: no worker events, no start-up exchange.
QUIET = ("--without-gossip", "--without-mingle", "--without-heartbeat")
#: docker-compose.yml's ``beat``: the scheduler, and Celery's worker events left on.
AS_SHIPPED = ("-B",)


@contextmanager
def platform_worker(
    env: dict[str, str], log: Path, options: tuple[str, ...] = QUIET
) -> Iterator[subprocess.Popen[bytes]]:
    """The platform's worker (reports, then the periodic jobs) until the block ends."""
    argv = [
        *[sys.executable, "-m", "celery", "-A", "web", "worker", "--concurrency=1"],
        *["-n", "platform@%h", "--loglevel=INFO", *options],
    ]
    worker = _start(argv, env, log)
    try:
        yield worker
    finally:
        kill(worker, signal.SIGTERM)


@contextmanager
def beat(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """The scheduler (``celery -A web beat``, its lock in web/scheduler.py) until the block
    ends; SIGKILL may end it earlier."""
    argv = [sys.executable, "-m", "celery", "-A", "web", "beat", "--loglevel=INFO"]
    scheduler = _start(argv, env, log)
    try:
        yield scheduler
    finally:
        kill(scheduler, signal.SIGTERM)


@contextmanager
def arena_worker(
    env: dict[str, str], log: Path, name: str = "test-arena"
) -> Iterator[subprocess.Popen[bytes]]:
    """An arena worker (one match at a time) until the block ends; SIGKILL may end it
    earlier. ``env -i``: it inherits nothing of this process's environment. Its arena host
    is registered first (unless ``env`` has no host key: a worker that must not start)."""
    if "ARENA_HOST_KEY_FILE" in env and "ARENA_HOST_NAME" in env:
        register_host(env)
    argv = [
        *["env", "-i", *(f"{key}={value}" for key, value in env.items())],
        *[sys.executable, "-m", "arena", "worker", "--concurrency=1", f"--name={name}"],
    ]
    worker = _start(argv, None, log)
    try:
        yield worker
    finally:
        kill(worker, signal.SIGTERM)


def kill(worker: subprocess.Popen[bytes], signum: int) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signum)
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def wait_for(
    condition: Callable[[], bool], seconds: float, what: str | Callable[[], str], *logs: Path
) -> None:
    """Until ``condition`` holds, at most ``seconds``; then fail saying ``what`` (called when
    it is a function: what it says is known only at the end) with the tails of ``logs``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    tails = [
        f"--- {log.name}:\n{log.read_text(errors='replace')[-3000:]}"
        for log in logs
        if log.exists()
    ]
    said = what() if callable(what) else what
    pytest.fail(f"timed out waiting for {said}; worker logs:\n" + "\n".join(tails))
