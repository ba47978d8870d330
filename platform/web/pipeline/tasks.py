"""Celery tasks: thin wrappers taking ids, over the plain functions of ``running.py``,
``ladder.py`` and ``validation.py``. With ``acks_late`` and ``task_reject_on_worker_lost``
(``web/celery.py``) a match whose worker died is delivered again; ``run_match`` is safe to
run twice."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from web.matches.models import Match

from . import ladder, running, validation
from .dispatch import RUN_MATCH, send_match
from .events import MatchEvent, log_event
from .running import RunResult


@shared_task(
    bind=True,
    name=RUN_MATCH,
    # Unexpected errors (database, storage) released the match: run it again with backoff.
    # Infrastructure errors of the sandbox come back as RETRY with their own delay, and a
    # bot's fault is a result, never an exception.
    autoretry_for=(Exception,),
    retry_backoff=10,
    retry_backoff_max=300,
    max_retries=8,
)
def run_match_task(self: Any, match_id: int) -> str:
    report = running.run_match(match_id)
    if report.result in (RunResult.RETRY, RunResult.BUSY):
        # Our own attempt count caps retries (MATCH_MAX_ATTEMPTS), not Celery's.
        raise self.retry(countdown=report.delay, max_retries=None)
    return report.result.value


@shared_task(name="pipeline.top_up_ladder")
def top_up_ladder_task() -> dict[str, int]:
    return ladder.top_up()


@shared_task(name="pipeline.reap_matches")
def reap_matches_task() -> int:
    send, failed = running.reap_matches()
    kinds = dict(Match.objects.filter(pk__in=send).values_list("pk", "kind"))
    for match_id in send:
        log_event(MatchEvent.RESENT, match=match_id)
        send_match(match_id, kinds[match_id])
    return len(send) + len(failed)


@shared_task(name="pipeline.revalidate_failed")
def revalidate_failed_task() -> int:
    return len(validation.revalidate_failed())
