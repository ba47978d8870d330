"""A real Celery worker for the pipeline tests: a subprocess on the production settings,
with Redis as its broker, the test database and the test process's files."""

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
from kombu import Connection

REPO = Path(__file__).resolve().parents[3]
#: A Redis database of its own, flushed before each test.
REDIS_URL = os.environ.get("CUCUMBERS_TEST_REDIS_URL", "redis://127.0.0.1:6379/7")


def require_redis() -> str:
    """The broker URL once Redis answers (flushed); else skip, or fail under ``CI=true``."""
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.flushdb()
        client.close()
    except redis.RedisError as error:
        message = f"Redis is not available at {REDIS_URL} (make services): {error}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return REDIS_URL


def worker_env(sandbox: str, **extra: str) -> dict[str, str]:
    db = connection.settings_dict
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY_", "MATCH_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="web.settings",
        DEBUG="0",
        SECRET_KEY="worker-test-secret",
        DATABASE_URL=(
            f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
        ),
        DB_CONN_MAX_AGE="0",
        REDIS_URL=REDIS_URL,
        DATA_DIR=str(settings.DATA_DIR),
        SANDBOX=sandbox,
        PYTHONPATH=os.pathsep.join([str(REPO / "platform"), str(REPO)]),
        **extra,
    )
    return env


@contextmanager
def celery_worker(env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A worker (one process in its pool) until the block ends; SIGKILL may end it earlier."""
    argv = [
        *[sys.executable, "-m", "celery", "-A", "web", "worker", "--concurrency=1"],
        *["-Q", "urgent,ladder,maintenance"],
    ]
    argv += ["--loglevel=INFO", "--without-gossip", "--without-mingle", "--without-heartbeat"]
    with log.open("ab") as out:
        worker = subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
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


def send(task_name: str, *args: object, queue: str = "ladder") -> None:
    """Send a task through Redis (the test process's own app uses the memory broker)."""
    from web.celery import app

    with Connection(REDIS_URL) as conn:
        app.send_task(task_name, args=list(args), connection=conn, queue=queue)


def wait_for(condition: Callable[[], bool], seconds: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
    pytest.fail(f"timed out waiting for {what}; worker log:\n{tail}")
