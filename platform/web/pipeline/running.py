"""Run one match, by id: claim it, play it in the sandbox, record it once. Plain functions;
``tasks.py`` wraps them for Celery (see docs/arena.md, "A match's life").

- Claim: a conditional UPDATE moves it ``queued → running`` under a fresh attempt id, or
  takes over a match still ``running`` after the lease (its worker died).
- Infrastructure errors give the match back to the queue with a growing delay, until
  ``MATCH_MAX_ATTEMPTS``; then it fails, unrated, with the reason. A bot's fault is a result.
- Recording (``results.py``) happens only while this attempt still holds the match.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from web.sandbox import SandboxKind, current_sandbox, prepare_runner

from .events import MatchEvent, log_event
from .models import Match, MatchStatus
from .playing import InfrastructureError, Timings, play_series
from .results import record_result

#: Longest wait between two attempts after infrastructure errors.
MAX_RETRY_SECONDS = 600


class RunResult(StrEnum):
    FINISHED = "finished"
    FAILED = "failed"
    RETRY = "retry"  # an infrastructure error: run again after ``delay``
    BUSY = "busy"  # another attempt holds it: look again once its lease is over
    SKIPPED = "skipped"  # nothing to do (finished, failed, or recorded by another attempt)


@dataclass(frozen=True, slots=True)
class RunReport:
    result: RunResult
    delay: float = 0.0
    reason: str = ""
    timings: Timings = field(default_factory=Timings)


def lease() -> timedelta:
    return timedelta(seconds=settings.MATCH_LEASE_SECONDS)


def release(match_id: int, attempt: uuid.UUID) -> bool:
    """running → queued, for the attempt that holds it (it could not finish)."""
    return bool(
        Match.objects.filter(pk=match_id, status=MatchStatus.RUNNING, attempt=attempt).update(
            status=MatchStatus.QUEUED, started_at=None
        )
    )


def fail(match_id: int, reason: str, attempt: uuid.UUID | None = None) -> bool:
    """Mark a queued or running match failed (unrated: nothing of it is recorded)."""
    holder = Q(status=MatchStatus.QUEUED) | Q(status=MatchStatus.RUNNING)
    if attempt is not None:
        holder = Q(status=MatchStatus.RUNNING, attempt=attempt)
    failed = bool(
        Match.objects.filter(holder, pk=match_id).update(
            status=MatchStatus.FAILED, failure_reason=reason[:2000], finished_at=timezone.now()
        )
    )
    if failed:
        log_event(MatchEvent.FAILED, match=match_id, reason=reason)
    return failed


def retry_delay(attempts: int) -> float:
    """Exponential backoff after the ``attempts``-th attempt failed."""
    return float(min(MAX_RETRY_SECONDS, settings.MATCH_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


def run_match(match_id: int, sandbox: SandboxKind | None = None) -> RunReport:
    """Claim, play and record one match. Safe to call any number of times."""
    attempt = uuid.uuid4()
    if not Match.claim(match_id, attempt, stale_before=timezone.now() - lease()):
        return _not_claimed(match_id)
    match = Match.objects.get(pk=match_id)
    log_event(MatchEvent.CLAIMED, match=match_id, attempt=match.attempts, kind=match.kind)
    if match.attempts > settings.MATCH_MAX_ATTEMPTS:
        reason = f"gave up after {match.attempts - 1} attempts (workers lost or errors)"
        fail(match_id, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    participants = list(match.participants.select_related("bot", "version").order_by("index"))
    if any(p.bot is None or p.version is None for p in participants):
        reason = "a bot of this match was deleted before it could play"
        fail(match_id, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    kind = sandbox or current_sandbox()
    try:
        played = play_series(match, participants, prepare_runner(kind))
    except InfrastructureError as error:
        return _infrastructure_error(match, attempt, str(error))
    except BaseException:
        release(match_id, attempt)  # an unexpected error (or a time limit): run it again
        raise
    try:
        recorded = record_result(match_id, attempt, played.outcomes, kind.value, played.timings)
    except BaseException:
        release(match_id, attempt)
        raise
    if not recorded.recorded:
        log_event(MatchEvent.DISCARDED, match=match_id, status=recorded.status)
        return RunReport(RunResult.SKIPPED, timings=played.timings)
    log_event(
        MatchEvent.FINISHED,
        match=match_id,
        games=len(played.outcomes),
        seats=len(participants),
        rated=match.rated,
        sandbox=kind.value,
        **played.timings.as_fields(),
    )
    return RunReport(RunResult.FINISHED, timings=played.timings)


def _not_claimed(match_id: int) -> RunReport:
    match = Match.objects.filter(pk=match_id).only("status", "started_at").first()
    if match is not None and match.status == MatchStatus.RUNNING and match.started_at:
        wait = (match.started_at + lease() - timezone.now()).total_seconds()
        log_event(MatchEvent.BUSY, match=match_id, retry_in=max(wait, 1.0))
        return RunReport(RunResult.BUSY, delay=max(wait, 1.0))
    log_event(MatchEvent.SKIPPED, match=match_id, status=match.status if match else "missing")
    return RunReport(RunResult.SKIPPED)


def _infrastructure_error(match: Match, attempt: uuid.UUID, reason: str) -> RunReport:
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        reason = f"infrastructure error, {match.attempts} attempts: {reason}"
        fail(match.pk, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    release(match.pk, attempt)
    delay = retry_delay(match.attempts)
    log_event(MatchEvent.RETRY, match=match.pk, attempt=match.attempts, delay=delay, reason=reason)
    return RunReport(RunResult.RETRY, delay=delay, reason=reason)


def reap_matches() -> tuple[list[int], list[int]]:
    """Matches a dead worker left ``running`` beyond the lease go back to the queue (or
    fail after ``MATCH_MAX_ATTEMPTS``); queued matches waiting longer than the lease (their
    message may be lost) are returned too, to be sent again. Returns (to send, failed)."""
    cutoff = timezone.now() - lease()
    send: list[int] = []
    failed: list[int] = []
    stuck = Match.objects.filter(status=MatchStatus.RUNNING, started_at__lt=cutoff)
    for match_id, attempts in stuck.values_list("pk", "attempts"):
        still_stuck = Match.objects.filter(
            pk=match_id, status=MatchStatus.RUNNING, started_at__lt=cutoff
        )
        if attempts >= settings.MATCH_MAX_ATTEMPTS:
            reason = f"its worker was lost {attempts} times"
            if still_stuck.update(
                status=MatchStatus.FAILED, failure_reason=reason, finished_at=timezone.now()
            ):
                log_event(MatchEvent.FAILED, match=match_id, reason=reason)
                failed.append(match_id)
        elif still_stuck.update(status=MatchStatus.QUEUED, started_at=None):
            log_event(MatchEvent.REQUEUED, match=match_id, attempts=attempts)
            send.append(match_id)
    waiting = Match.objects.filter(status=MatchStatus.QUEUED, created_at__lt=cutoff)
    send += list(waiting.exclude(pk__in=send).values_list("pk", flat=True))
    return send, failed
