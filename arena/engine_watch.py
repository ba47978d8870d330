"""A match worker and its Docker engine: no engine at the start, no worker; an engine lost
later, no work taken until it is back.

- :func:`require_engine`: a worker that runs bots in Docker checks at start that the engine
  answers and stops at once with a message naming the Docker engine otherwise, instead of
  taking matches it can only fail.
- :class:`EngineWatch`: a Celery consumer step that asks the engine every
  :data:`WATCH_SECONDS`; while it does not answer, the worker stops consuming its match
  queues (a worker whose engine is down would otherwise claim the whole queue and burn
  every match's attempts within seconds), and resumes when the engine is back. Matches in
  flight when the engine goes end as infrastructure errors, retried later.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from celery import bootsteps

from .sandbox.container import engine_problem

logger = logging.getLogger(__name__)

#: How often the engine is asked while the worker runs.
WATCH_SECONDS = 5.0
#: How long the engine has to answer a ping.
PING_SECONDS = 3.0


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

    def __init__(self, parent: Any, **kwargs: Any) -> None:
        super().__init__(parent, **kwargs)
        self.paused: list[str] = []
        self._timer: Any = None

    def start(self, parent: Any) -> None:
        self._timer = parent.timer.call_repeatedly(WATCH_SECONDS, self.check, (parent,))

    def stop(self, parent: Any) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _rank(self, queue: str) -> int:
        return self.order.index(queue) if queue in self.order else len(self.order)

    def check(self, consumer: Any) -> None:
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
