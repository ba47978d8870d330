"""The tournaments app's jobs, on the platform's own worker (``maintenance`` queue):
recurring house events opened for entries (beat), and the mail to a finished tournament's
entrants (its standings read here, never in the transaction that finished the event).
Starting and ending events is the pipeline's (``web/pipeline/kinds/tournament.py``).
"""

from __future__ import annotations

from celery import shared_task

from arena.broker import RECUR_TOURNAMENTS_TASK, TELL_ENTRANTS_TASK

from . import notices, recurring


@shared_task(name=RECUR_TOURNAMENTS_TASK)
def recur_task() -> dict[str, int]:
    return recurring.recur()


@shared_task(name=TELL_ENTRANTS_TASK)
def tell_entrants_task(tournament_id: int) -> int:
    return notices.send_entrant_notices(tournament_id)
