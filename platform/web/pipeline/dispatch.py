"""Sending a queued match to the arena: each send is a new *attempt*
(:func:`~web.pipeline.transitions.issue`), and the match's :class:`~arena.contract.MatchJob`
goes on its kind's queue (:data:`arena.broker.KIND_QUEUES`: validations and challenges on
``urgent``, served before ``tournament``, served before ``ladder``).

A broker that is down must not undo or break what was saved: a send after commit is
``robust`` (its failure is logged, never raised into the request that queued the match), the
attempt is taken back, and the match stays ``queued`` and unsent for the reaper
(:func:`web.pipeline.running.reap_matches`). Tasks are sent by name: the platform imports no
code of the arena worker's. Every job travels signed by the platform's key
(``ARENA_SIGNING_KEY_FILE``): arena workers play nothing else.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime

from celery import current_app
from django.conf import settings
from django.db import transaction
from kombu import Connection  # type: ignore[attr-defined]  # kombu declares no exports

from arena.broker import MAINTENANCE_QUEUE, MATCH_QUEUES, PLAY_TASK, SEND_MATCH_TASK, queue_for
from arena.contract import MatchJob, dump
from arena.signing import Purpose
from web.arena_hosts.keys import platform_signer
from web.matches.models import Match

from .events import MatchEvent, log_event
from .jobs import UnplayableMatch, is_builtin, job_for
from .kind import policy_for
from .transitions import RunReport, RunResult, fail, issue, unissue

logger = logging.getLogger(__name__)


def issue_job(match_id: int, resend_before: datetime | None = None) -> MatchJob | RunReport:
    """The job of a queued match waiting to be sent, under a new attempt (see
    :func:`~web.pipeline.transitions.issue` for ``resend_before``); a :class:`RunReport`
    when there is nothing to send: the match is not waiting, or it cannot be played (then
    it failed)."""
    issued = _issue(match_id, resend_before)
    return issued if isinstance(issued, RunReport) else issued[0]


def _issue(match_id: int, resend_before: datetime | None) -> tuple[MatchJob, str] | RunReport:
    """:func:`issue_job`, with the queue the job waits on (read from the same row)."""
    attempt = uuid.uuid4()
    if not issue(match_id, attempt, resend_before):
        return RunReport(RunResult.SKIPPED)
    match = Match.objects.get(pk=match_id)
    if match.attempts > settings.MATCH_MAX_ATTEMPTS:
        reason = f"gave up after {match.attempts - 1} attempts (workers lost or errors)"
        fail(match_id, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    participants = list(match.participants.select_related("version").order_by("index"))
    if any(p.version is None and not is_builtin(p) for p in participants):
        reason = "a bot of this match was deleted before it could play"
        fail(match_id, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    refusal = policy_for(match.kind).refusal(match, participants)
    if refusal is not None:
        fail(match_id, refusal, attempt)
        return RunReport(RunResult.FAILED, reason=refusal)
    try:
        return job_for(match, participants, attempt), queue_for(match.kind, debut=match.debut)
    except UnplayableMatch as error:
        fail(match_id, str(error), attempt)
        return RunReport(RunResult.FAILED, reason=str(error))


def send_match(match_id: int, resend_before: datetime | None = None) -> bool:
    """Send the match's job now under a new attempt, signed by the platform; False when
    there was nothing to send, or when it could not be signed or the broker could not take
    it (logged; the match stays queued and unsent)."""
    issued = _issue(match_id, resend_before)
    if isinstance(issued, RunReport):
        return False
    job, queue = issued
    try:
        signed = platform_signer().seal(Purpose.JOB, dump(job))
        current_app.send_task(
            PLAY_TASK,
            args=[signed],
            queue=queue,
            # The platform decides how long a match may take: its lease follows from it.
            soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT,
            time_limit=settings.CELERY_TASK_TIME_LIMIT,
        )
    except Exception as error:  # no key, kombu's OperationalError, a refused connection...
        log_event(MatchEvent.UNSENT, match=match_id, reason=f"{type(error).__name__}: {error}")
        unissue(match_id, job.attempt)
        return False
    return True


def send_match_on_commit(match_id: int) -> None:
    """Send the match's job once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send_match(match_id), robust=True)


def queue_depths() -> dict[str, int] | None:
    """Messages waiting on each arena queue, as the broker of the settings counts them;
    None (logged) when it does not answer within a couple of seconds."""
    try:
        with Connection(  # type: ignore[no-untyped-call]
            settings.CELERY_BROKER_URL,
            transport_options=settings.CELERY_BROKER_TRANSPORT_OPTIONS,
            connect_timeout=2,
        ) as broker:
            broker.ensure_connection(max_retries=1)  # an answer, not retries
            channel = broker.default_channel
            return {
                # Declared, not passively: an empty Redis queue has no key, and a passive
                # declare would call it missing.
                queue: channel.queue_declare(queue=queue).message_count
                for queue in MATCH_QUEUES
            }
    except Exception:
        logger.exception("the broker does not answer: its queues cannot be counted")
        return None


def send_match_later(match_id: int, delay: float) -> None:
    """Send the match again in ``delay`` seconds (a retry's backoff), through the
    platform's own queue; should that message be lost, the reaper sends it."""
    try:
        current_app.send_task(
            SEND_MATCH_TASK, args=[match_id], queue=MAINTENANCE_QUEUE, countdown=delay
        )
    except Exception as error:
        log_event(MatchEvent.UNSENT, match=match_id, reason=f"{type(error).__name__}: {error}")
