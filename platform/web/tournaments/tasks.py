"""The tournaments' periodic job and their entrants' mail, on the platform's own worker
(``maintenance`` queue)."""

from __future__ import annotations

from celery import shared_task

from . import lifecycle, notices


@shared_task(name="tournaments.advance")
def advance_task() -> dict[str, int]:
    return lifecycle.advance()


@shared_task(name=notices.TELL_ENTRANTS_TASK)
def tell_entrants_task(tournament_id: int) -> int:
    return notices.send_entrant_notices(tournament_id)
