"""The platform's Celery tasks, served by its own worker (the one that holds the database):
what arena workers send back on the ``reports`` queue, and the periodic jobs on
``maintenance``. Thin wrappers over ``running.py``, ``dispatch.py`` and the kinds' modules;
their names and queues are declared once, in ``arena/broker.py``, their schedules in
settings. Matches themselves are played by arena workers (``python -m arena worker``), which
hold no database.

Every message from an arena worker is an envelope signed by its arena host
(``arena/signing.py``); one whose signer is unknown or revoked, whose signature is bad or
whose purpose is another's is refused (``event=match.refused``) before it is read.

With ``acks_late`` and ``task_reject_on_worker_lost`` (``arena/broker.py``) a message whose
worker died is delivered again: every task here is safe to run twice.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from arena.broker import (
    ADVANCE_TOURNAMENTS_TASK,
    REAP_MATCHES_TASK,
    REPORT_TASK,
    REVALIDATE_TASK,
    SEND_MATCH_TASK,
    STARTED_TASK,
    TOP_UP_LADDER_TASK,
)
from arena.contract import ContractError, load_report, load_started
from arena.signing import Purpose, SignatureError, claimed
from web.arena_hosts.keys import open_from_host

from . import running
from .dispatch import send_match, send_match_later
from .events import MatchEvent, log_event
from .kinds import ladder, tournament, validation
from .transitions import RunResult, lease

logger = logging.getLogger(__name__)

# A report that cannot be recorded now (the database is restarting) is tried again with
# backoff; the match stays with its attempt meanwhile, so nothing is lost or doubled.
_RETRIED = {
    "autoretry_for": (Exception,),
    "dont_autoretry_for": (ContractError, SignatureError),
    "retry_backoff": 5,
    "retry_backoff_max": 120,
    "max_retries": 12,
}


def _opened(text: str, purpose: Purpose) -> tuple[str, str] | None:
    """(host, body) of a message an arena host signed; None, logged, for any other."""
    try:
        return open_from_host(text, purpose)
    except SignatureError as error:
        log_event(MatchEvent.REFUSED, message=purpose.value, reason=str(error), **claimed(text))
        return None


@shared_task(name=STARTED_TASK, **_RETRIED)
def match_started_task(text: str) -> bool:
    opened = _opened(text, Purpose.STARTED)
    if opened is None:
        return False
    host, body = opened
    try:
        started = load_started(body)
    except ContractError as error:
        logger.error("refused a started message from %s: %s", host, error)
        return False
    return running.match_started(started, host)


@shared_task(name=REPORT_TASK, **_RETRIED)
def match_report_task(text: str) -> str:
    opened = _opened(text, Purpose.REPORT)
    if opened is None:
        return "refused"
    host, body = opened
    try:
        report = load_report(body)
    except ContractError as error:
        logger.error("refused a match report from %s: %s", host, error)
        return "refused"
    result = running.receive_report(report, host)
    if result.result is RunResult.RETRY:
        send_match_later(report.match, result.delay)
    return result.result.value


@shared_task(name=SEND_MATCH_TASK)
def send_match_task(match_id: int) -> bool:
    return send_match(match_id)


@shared_task(name=TOP_UP_LADDER_TASK)
def top_up_ladder_task() -> dict[str, int]:
    return ladder.top_up()


@shared_task(name=REAP_MATCHES_TASK)
def reap_matches_task() -> int:
    send, resend, failed = running.reap_matches()
    for match_id in send:
        log_event(MatchEvent.RESENT, match=match_id)
        send_match(match_id)
    for match_id in resend:
        log_event(MatchEvent.RESENT, match=match_id, lost=True)
        send_match(match_id, resend_before=timezone.now() - lease())
    return len(send) + len(resend) + len(failed)


@shared_task(name=REVALIDATE_TASK)
def revalidate_failed_task() -> int:
    return len(validation.revalidate_failed())


@shared_task(name=ADVANCE_TOURNAMENTS_TASK)
def advance_tournaments_task() -> dict[str, int]:
    return tournament.advance()
