"""The tournaments' periodic job, on the platform's own worker (``maintenance`` queue)."""

from __future__ import annotations

from celery import shared_task

from . import lifecycle, recurring


@shared_task(name="tournaments.advance")
def advance_task() -> dict[str, int]:
    return lifecycle.advance()


@shared_task(name="tournaments.recur")
def recur_task() -> dict[str, int]:
    return recurring.recur()
