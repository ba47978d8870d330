"""Exactly one scheduler, with real processes on PostgreSQL and Redis: beat takes a lock
(web/scheduler.py, a PostgreSQL advisory lock) before it sends anything, a second beat waits
on it and takes over the moment the first is killed; and a beat inside a worker (``-B``) ends
with the worker's main process when that is killed with SIGKILL, instead of running on
beside the restarted worker's."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest
from django.db import connection

from tests.web.matches.celery_worker import (
    AS_SHIPPED,
    beat,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from web.scheduler import LOCK_KEY

pytestmark = pytest.mark.django_db(transaction=True)

SENT = re.compile(r"Scheduler: Sending due task")


def lock_holders() -> int:
    """Sessions holding the scheduler lock in the test database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND ((classid::bigint << 32) | objid::bigint) = %s",
            [LOCK_KEY],
        )
        return int(cursor.fetchone()[0])


def group_running(pgid: int) -> list[str]:
    """The processes of a process group (a worker started in a session of its own) that
    still run, read from /proc: a zombie has ended, whoever is to reap it (an orphan waits
    for PID 1 or a subreaper, and some init processes never reap), so it is left out, where
    ``killpg(pgid, 0)`` would count it."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # it ended while we read
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        state, _ppid, pgrp = text[text.rindex(")") + 2 :].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            running.append(f"{stat.parent.name} {state} {text[: text.rindex(')') + 1]}")
    return running


def sent(log: Path) -> int:
    return len(SENT.findall(log.read_text(errors="replace")))


def test_a_second_beat_waits_on_the_lock_and_takes_over_when_the_first_is_killed(
    tmp_path: Path,
) -> None:
    require_redis()
    env = platform_env(LADDER_TOP_UP_SECONDS="1")
    first_log, second_log = tmp_path / "beat-1.log", tmp_path / "beat-2.log"
    with platform_broker(), beat(env, first_log) as first:
        wait_for(lambda: sent(first_log) >= 2, 180, "the first beat to send", first_log)
        assert lock_holders() == 1
        with beat(env, second_log):
            wait_for(
                lambda: "another scheduler holds the lock" in second_log.read_text(),
                60,
                "the second beat to wait",
                second_log,
            )
            before = sent(first_log)
            wait_for(lambda: sent(first_log) >= before + 3, 60, "the first to go on", first_log)
            assert sent(second_log) == 0 and lock_holders() == 1
            os.killpg(first.pid, signal.SIGKILL)
            first.wait()
            wait_for(lambda: sent(second_log) >= 2, 60, "the second to take over", second_log)
            assert "this is the one scheduler now" in second_log.read_text()
            assert lock_holders() == 1
    wait_for(lambda: lock_holders() == 0, 30, "the lock released at the end")


def test_a_worker_killed_with_sigkill_leaves_no_scheduler_and_a_restart_makes_exactly_one(
    tmp_path: Path,
) -> None:
    require_redis()
    env = platform_env(LADDER_TOP_UP_SECONDS="1")
    first_log, second_log = tmp_path / "worker-1.log", tmp_path / "worker-2.log"
    with platform_broker(), platform_worker(env, first_log, AS_SHIPPED) as worker:
        wait_for(lambda: sent(first_log) >= 2, 180, "the embedded beat to send", first_log)
        assert lock_holders() == 1
        os.kill(worker.pid, signal.SIGKILL)  # the main process only, as an OOM kill does
        worker.wait()
        # Its beat (and its pool) end with it: nothing of the worker is left running.
        left: list[str] = []

        def ended() -> bool:
            left[:] = group_running(worker.pid)
            return not left

        wait_for(
            ended, 60, lambda: f"the worker's children to end (still running: {left})", first_log
        )
        wait_for(lambda: lock_holders() == 0, 60, "the lock released")
    with platform_broker(), platform_worker(env, second_log, AS_SHIPPED):
        wait_for(lambda: sent(second_log) >= 3, 180, "the restarted beat to send", second_log)
        assert lock_holders() == 1
