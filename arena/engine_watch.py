"""A match worker and its Docker engine: no engine at the start, no worker; an engine lost
later, no work taken until it is back.

- :func:`require_engine`: a worker that runs bots in Docker checks at start that the engine
  answers and stops at once with a message naming the Docker engine otherwise, instead of
  taking matches it can only fail.
- :class:`EngineWatch`: a Celery consumer step that asks the engine every
  :data:`WATCH_SECONDS` (``ARENA_ENGINE_WATCH_SECONDS``); while it does not answer, the
  worker stops consuming its match queues (a worker whose engine is down would otherwise
  claim the whole queue and burn every match's attempts within seconds), asks every
  :data:`PAUSED_POLL_SECONDS`, and resumes when the engine is back. Matches in flight when
  the engine goes end as infrastructure errors, retried later.
- :class:`EngineMissing`: a job taken in the seconds between an engine's loss and the
  watch's next question finds it gone before its first container (:func:`engine_missing`,
  asked before the worker says it started). It goes back to its queue as it came, under the
  same attempt, with nothing sent to the platform (no attempt spent, no fault), and the
  worker's main process pauses the watch at once (:func:`pause_now`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from celery import bootsteps
from celery.exceptions import Reject

from .sandbox.container import engine_problem

logger = logging.getLogger(__name__)

#: How often the engine is asked while it answers (``ARENA_ENGINE_WATCH_SECONDS``).
WATCH_SECONDS = 5.0
#: How often it is asked while the queues are paused: the worker resumes within a second or
#: so of the engine's return.
PAUSED_POLL_SECONDS = 1.0
#: How long the engine has to answer a ping.
PING_SECONDS = 3.0
#: The variable that sets :data:`WATCH_SECONDS`.
WATCH_VARIABLE = "ARENA_ENGINE_WATCH_SECONDS"


def watch_seconds(environ: Mapping[str, str]) -> float:
    """How often the watch asks a healthy engine, from ``environ``; ValueError names the
    variable for anything but a positive number of seconds."""
    text = environ.get(WATCH_VARIABLE, "").strip()
    if not text:
        return WATCH_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{WATCH_VARIABLE}={text!r}: a positive number of seconds")
    return seconds


class EngineMissing(Reject):  # type: ignore[misc]  # Celery is untyped
    """The engine did not answer before a job's first container: the job goes back to its
    queue unchanged (``requeue``), and the main process pauses the watch on seeing this."""

    def __init__(self, reason: str, requeue: bool = True) -> None:
        # The pool's child raises it, its parent reads it back (pickled as ``args``).
        super().__init__(reason, requeue)


def engine_missing() -> str | None:
    """Why the engine cannot be used now (None when it answers): asked before a job starts."""
    return engine_problem(PING_SECONDS)


class EngineUnavailable(SystemExit):
    """The Docker engine does not answer at a worker's start: the worker must not run."""


def require_engine() -> None:
    """Stop (exit status 1) with a message naming the Docker engine if it does not answer."""
    problem = engine_problem(PING_SECONDS)
    if problem is not None:
        message = (
            "this worker runs bots in the Docker sandbox only, and the Docker engine cannot be"
            f" reached: {problem} (start dockerd or set DOCKER_HOST; SANDBOX=process runs bots"
            " unsandboxed, for local use only)"
        )
        logger.critical(message)
        raise EngineUnavailable(message)


# Celery is untyped: its base class is Any to mypy.
class EngineWatch(bootsteps.StartStopStep):  # type: ignore[misc]
    """Pauses the worker's match queues while the Docker engine does not answer."""

    requires = ("celery.worker.consumer.tasks:Tasks",)
    #: The queues paused with the engine (set by whoever installs the step).
    queues: Sequence[str] = ()
    #: Every queue the worker may serve, first served first: a queue added back is served
    #: after those consumed meanwhile (kombu keeps the order queues were added in), so those
    #: are added back too, behind it, where they were.
    order: Sequence[str] = ()
    #: How often a healthy engine is asked (set by whoever installs the step).
    every: float = WATCH_SECONDS
    #: The running step and its consumer, for :func:`pause_now` (the worker's main process
    #: has one consumer).
    running: ClassVar[tuple[EngineWatch, Any] | None] = None

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.paused: list[str] = []
        self._timer: Any = None
        self._asked = time.monotonic()

    def start(self, parent: Any) -> None:
        # A short tick; the engine is asked on it only as often as the state asks for.
        self._timer = parent.timer.call_repeatedly(PAUSED_POLL_SECONDS, self.tick, (parent,))
        EngineWatch.running = (self, parent)

    def stop(self, parent: Any) -> None:
        EngineWatch.running = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def tick(self, consumer: Any) -> None:
        if self.paused or time.monotonic() - self._asked >= self.every:
            self.check(consumer)

    def _rank(self, queue: str) -> int:
        return self.order.index(queue) if queue in self.order else len(self.order)

    def check(self, consumer: Any) -> None:
        self._asked = time.monotonic()
        problem = engine_problem(PING_SECONDS)
        if problem is not None and not self.paused:
            self.paused = [q for q in self.queues if consumer.task_consumer.consuming_from(q)]
            for queue in self.paused:
                consumer.cancel_task_queue(queue)
            logger.error(
                "the Docker engine cannot be reached (%s): paused %s until it is back",
                problem,
                ", ".join(self.paused) or "nothing",
            )
        elif problem is None and self.paused:
            kept = [
                q
                for q in self.order
                if q not in self.paused and consumer.task_consumer.consuming_from(q)
            ]
            for queue in kept:
                consumer.cancel_task_queue(queue)
            for queue in sorted([*self.paused, *kept], key=self._rank):
                consumer.add_task_queue(queue)
            logger.warning("the Docker engine is back: resumed %s", ", ".join(self.paused))
            self.paused = []


def pause_now(reason: str) -> None:
    """In the worker's main process, when a job found the engine missing: ask it now, and
    pause the match queues if it is still gone (the job goes back to its queue after this,
    so a paused worker does not take it again)."""
    running = EngineWatch.running
    if running is None:
        return
    watch, consumer = running
    logger.warning("a job found the Docker engine missing (%s): asking it now", reason)
    watch.check(consumer)
