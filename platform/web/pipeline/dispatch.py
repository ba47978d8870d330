"""Sending a match to the workers, after the transaction that queued it commits.

A broker that is down must not undo or break what was saved: the send is ``robust`` (its
failure is logged, never raised into the request that queued the match), and the match
stays ``queued`` and unsent, and the reaper sends it at its next run
(:func:`web.pipeline.running.reap_matches`). Tasks are sent by name, so that queuing a
match imports no task module.
"""

from __future__ import annotations

import logging

from celery import current_app
from django.db import transaction

from web.matches.models import Match, MatchKind

from .events import MatchEvent, log_event
from .queues import LADDER_QUEUE, URGENT_QUEUE

logger = logging.getLogger(__name__)

RUN_MATCH = "pipeline.run_match"


def queue_for(kind: str) -> str:
    """The queue of a match of ``kind`` (a ``MatchKind`` value)."""
    return LADDER_QUEUE if kind == MatchKind.LADDER else URGENT_QUEUE


def send_match(match_id: int, kind: str) -> bool:
    """Send the match's task now, on its kind's queue; False (logged, and the match marked
    unsent) when the broker cannot take it."""
    try:
        current_app.send_task(RUN_MATCH, args=[match_id], queue=queue_for(kind))
    except Exception as error:  # kombu's OperationalError, a refused connection...
        log_event(MatchEvent.UNSENT, match=match_id, reason=f"{type(error).__name__}: {error}")
        Match.objects.filter(pk=match_id).update(sent=False)
        return False
    Match.objects.filter(pk=match_id, sent=False).update(sent=True)
    return True


def send_match_on_commit(match_id: int, kind: str) -> None:
    """Send the match's task once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send_match(match_id, kind), robust=True)
