"""The notices' entry points, one call at each place where something happens to a bot (a
verdict, a first rated game, a retirement, a tournament's end). Each enqueues its task once
the caller's transaction commits (at once outside one): a rolled-back change tells nobody,
and a broker that is down loses the notice (logged), never the change that caused it."""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.db import transaction

from .models import NoticeKind
from .tasks import deliver_task, version_notice_task

logger = logging.getLogger(__name__)


def version_rejected(version_id: int) -> None:
    _after_commit(version_notice_task, NoticeKind.REJECTED.value, version_id)


def first_rating(version_id: int | None, *, games_before: int) -> None:
    """A rated game of the version was recorded; ``games_before``: the rated games it had
    played before it (only its first game tells its owner)."""
    if games_before == 0 and version_id is not None:
        _after_commit(version_notice_task, NoticeKind.FIRST_RATING.value, version_id)


def version_retired(version_id: int) -> None:
    _after_commit(version_notice_task, NoticeKind.RETIRED.value, version_id)


def tell(kind: NoticeKind, user_id: int, facts: dict[str, str]) -> None:
    """A notice whose facts the caller gathered (a tournament's standings)."""
    _after_commit(deliver_task, kind.value, user_id, facts)


def _after_commit(task: Any, *args: object) -> None:
    transaction.on_commit(partial(_enqueue, task, args), robust=True)


def _enqueue(task: Any, args: tuple[object, ...]) -> None:
    try:
        task.apply_async(args=args)
    except Exception as error:  # the broker is down: the notice is lost, the change is not
        logger.warning(
            'event=notice.unsent task=%s error="%s: %s"', task.name, type(error).__name__, error
        )
