"""Exactly one scheduler: Celery's beat with a single-instance lock.

The periodic jobs (top-up, reaper, re-validation, tournaments) must be sent by one beat at
a time: two double every job. Beat runs as its own process (``celery -A web beat``: its own
compose service, its own child of ``deploy/run.py``), and :class:`LockedScheduler` (this
project's ``beat_scheduler``) takes a lock before it opens its schedule:

- PostgreSQL: a session-level advisory lock on a connection of its own. The server
  releases it the moment that connection ends, with the process however it died (SIGKILL,
  an OOM kill, a lost host's TCP keepalive), so a second beat, which waits on the lock,
  takes over at once and never runs beside the first.
- Any other database (SQLite, ``make run`` on one machine): an exclusive ``flock`` on
  ``DATA_DIR/celerybeat.lock``, which the kernel releases with the process.

At every tick the holder checks its lock is still there (a PostgreSQL restart ends the
session): if not, it stops sending and waits for the lock again. A beat started inside a
worker (``-B``, not how this project runs it) gets the same lock, and a parent-death signal
besides: killing the worker's main process ends its beat too, instead of leaving an orphan
that runs beside the restarted worker's.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import time
from pathlib import Path
from typing import Any, Final, Protocol

from billiard.process import current_process  # type: ignore[import-untyped]
from celery.beat import PersistentScheduler
from django.conf import settings
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper

from arena.parent_death import die_with_parent

logger = logging.getLogger(__name__)

#: The advisory lock's key: any fixed 64-bit number no other code of the database uses.
LOCK_KEY: Final = 0x637563756D626572  # "cucumber"
#: How often a waiting beat tries for the lock.
WAIT_SECONDS: Final = 2.0
LOCK_FILE: Final = "celerybeat.lock"


class SchedulerLock(Protocol):
    def try_acquire(self) -> bool: ...
    def held(self) -> bool: ...
    def release(self) -> None: ...


class AdvisoryLock:
    """A PostgreSQL session-level advisory lock, on a connection of its own (never one
    that Django or Celery closes between tasks)."""

    def __init__(self, alias: str = "default", key: int = LOCK_KEY) -> None:
        self.alias, self.key = alias, key
        self.connection: BaseDatabaseWrapper | None = None

    def _query(self, sql: str) -> Any:
        if self.connection is None:
            self.connection = connections.create_connection(self.alias)
        with self.connection.cursor() as cursor:
            cursor.execute(sql, [self.key])
            row = cursor.fetchone()
        return row[0] if row else None

    def try_acquire(self) -> bool:
        try:
            return bool(self._query("SELECT pg_try_advisory_lock(%s)"))
        except Exception as error:  # the database is away: try again later
            logger.warning("beat: the scheduler lock cannot be asked for: %s", error)
            self._drop()
            return False

    def held(self) -> bool:
        """Still held: this session is alive and holds it (one round trip)."""
        if self.connection is None:
            return False
        try:
            return bool(
                self._query(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                    " AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint)"
                    " = %s"
                )
            )
        except Exception as error:
            logger.error("beat: the scheduler lock's connection is gone: %s", error)
            self._drop()
            return False

    def release(self) -> None:
        self._drop()  # ending the session releases the lock

    def _drop(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(Exception):  # already broken
                self.connection.close()
            self.connection = None


class FileLock:
    """An exclusive ``flock`` on a file (one machine: ``make run`` on SQLite)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.descriptor: int | None = None

    def try_acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            return False
        os.ftruncate(descriptor, 0)
        os.write(descriptor, f"{os.getpid()}\n".encode())
        self.descriptor = descriptor
        return True

    def held(self) -> bool:
        return self.descriptor is not None

    def release(self) -> None:
        if self.descriptor is not None:
            os.close(self.descriptor)
            self.descriptor = None


def scheduler_lock() -> SchedulerLock:
    """The lock for this site's database."""
    if connections["default"].vendor == "postgresql":
        return AdvisoryLock()
    return FileLock(Path(settings.DATA_DIR) / LOCK_FILE)


def wait_for(lock: SchedulerLock) -> None:
    """Block until ``lock`` is this process's (SIGTERM still stops the wait)."""
    if lock.try_acquire():
        logger.info("beat: scheduler lock taken: this is the one scheduler")
        return
    logger.warning("beat: another scheduler holds the lock: waiting for it")
    while not lock.try_acquire():
        time.sleep(WAIT_SECONDS)
    logger.info("beat: scheduler lock taken: this is the one scheduler now")


class LockedScheduler(PersistentScheduler):  # type: ignore[misc]  # Celery is untyped
    """Celery's scheduler (its schedule in ``CELERY_BEAT_SCHEDULE_FILENAME``), run by one
    process at a time: it opens the schedule only once it holds the lock, and stops sending
    the moment it no longer does."""

    lock: SchedulerLock | None = None

    def setup_schedule(self) -> None:
        if current_process().name == EMBEDDED_NAME:  # -B: before the wait, not after
            end_with_the_worker()
        self.lock = scheduler_lock()
        wait_for(self.lock)
        super().setup_schedule()

    def tick(self, *args: Any, **kwargs: Any) -> float:
        if self.lock is not None and not self.lock.held():
            logger.error("beat: the scheduler lock was lost: sending nothing until it is back")
            wait_for(self.lock)
        return float(super().tick(*args, **kwargs))

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.lock is not None:
                self.lock.release()


#: The name Celery gives the process of a beat inside a worker (``-B``).
EMBEDDED_NAME: Final = "Beat"


def end_with_the_worker() -> None:
    """A beat inside a worker (``-B``) ends with the worker's main process."""
    parent = os.getppid()
    if parent == 1:  # the worker is gone already
        os._exit(1)
    if not die_with_parent():
        logger.warning("beat: no parent-death signal here: a killed worker may leave it")
    if os.getppid() != parent:  # the worker died before the signal was set
        os._exit(1)
