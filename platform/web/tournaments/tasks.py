"""The mail to a finished tournament's entrants, on the platform's own worker (``maintenance``
queue): the standings are read here, never in the transaction that finished the event."""

from __future__ import annotations

from celery import shared_task

from . import notices


@shared_task(name=notices.TELL_ENTRANTS_TASK)
def tell_entrants_task(tournament_id: int) -> int:
    return notices.send_entrant_notices(tournament_id)
