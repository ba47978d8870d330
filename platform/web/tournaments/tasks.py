"""The tournaments app's periodic job, on the platform's own worker (``maintenance`` queue):
recurring house events opened for entries. Starting and ending events is the pipeline's
(``web/pipeline/kinds/tournament.py``, ``tournaments.advance``)."""

from __future__ import annotations

from celery import shared_task

from arena.broker import RECUR_TOURNAMENTS_TASK

from . import recurring


@shared_task(name=RECUR_TOURNAMENTS_TASK)
def recur_task() -> dict[str, int]:
    return recurring.recur()
