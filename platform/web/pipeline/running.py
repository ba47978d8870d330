"""One match's life on the platform's side, for every kind of match: claim it, hand its job
to the arena, take the report back (see docs/arena.md, "A match's life").

- Claim: a conditional UPDATE moves it ``queued → running`` under a fresh attempt id, or
  takes over a match still ``running`` after the lease (its worker died).
- Play: :func:`arena.playing.play_job` on the job (:mod:`web.pipeline.jobs`).
- Report: a played report is recorded once (:mod:`web.pipeline.recording`); an
  infrastructure error gives the match back to the queue with a growing delay, until
  ``MATCH_MAX_ATTEMPTS``; then it fails, unrated, with the reason. No bot is charged.
"""

from __future__ import annotations

import socket
import uuid
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from arena.contract import MatchJob, MatchReport, ReportStatus
from arena.playing import play_job
from web.bots.models import BotVersion
from web.matches.models import Match, MatchKind, MatchStatus
from web.sandbox import SandboxKind, current_sandbox, prepare_runner

from . import validation
from .events import MatchEvent, log_event
from .jobs import UnplayableMatch, is_builtin, job_for
from .recording import record_report

#: Longest wait between two attempts after infrastructure errors.
MAX_RETRY_SECONDS = 600
#: A queued match not yet sent this long after its creation was refused by the broker.
UNSENT_GRACE_SECONDS = 10


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
    timings: dict[str, float] = field(default_factory=dict)


def lease() -> timedelta:
    return timedelta(seconds=settings.MATCH_LEASE_SECONDS)


def worker_name() -> str:
    """Who plays matches in this process, as match pages show it."""
    return socket.gethostname()


def release(match_id: int, attempt: uuid.UUID) -> bool:
    """running → queued, for the attempt that holds it (it could not finish)."""
    released = bool(
        Match.objects.filter(pk=match_id, status=MatchStatus.RUNNING, attempt=attempt).update(
            status=MatchStatus.QUEUED, started_at=None
        )
    )
    if released:
        validation.match_returned(match_id)
    return released


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
        validation.match_returned(match_id)
    return failed


def retry_delay(attempts: int) -> float:
    """Exponential backoff after the ``attempts``-th attempt failed."""
    return float(min(MAX_RETRY_SECONDS, settings.MATCH_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


@dataclass(frozen=True, slots=True)
class Claimed:
    """A match this attempt holds, as the job to play."""

    job: MatchJob


def claim_job(match_id: int) -> Claimed | RunReport:
    """Claim the match and build its job; a :class:`RunReport` when there is nothing to
    play (another attempt holds it, it is over, or it cannot be played and failed)."""
    attempt = uuid.uuid4()
    if not Match.claim(match_id, attempt, stale_before=timezone.now() - lease()):
        return _not_claimed(match_id)
    match = Match.objects.get(pk=match_id)
    log_event(MatchEvent.CLAIMED, match=match_id, attempt=match.attempts, kind=match.kind)
    if match.attempts > settings.MATCH_MAX_ATTEMPTS:
        reason = f"gave up after {match.attempts - 1} attempts (workers lost or errors)"
        fail(match_id, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    participants = list(match.participants.select_related("version").order_by("index"))
    if any(p.version is None and not is_builtin(p) for p in participants):
        reason = "a bot of this match was deleted before it could play"
        fail(match_id, reason, attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    if match.kind == MatchKind.VALIDATION:
        validation.match_started(match_id)
    try:
        return Claimed(job_for(match, participants, attempt))
    except UnplayableMatch as error:
        fail(match_id, str(error), attempt)
        return RunReport(RunResult.FAILED, reason=str(error))


def run_match(match_id: int, sandbox: SandboxKind | None = None) -> RunReport:
    """Claim, play (in this process's sandbox) and record one match. Safe to call any
    number of times."""
    claimed = claim_job(match_id)
    if isinstance(claimed, RunReport):
        return claimed
    job = claimed.job
    try:
        runner = prepare_runner(sandbox or current_sandbox())
    except Exception as error:  # the sandbox cannot be used here: nobody's fault but ours
        report = infrastructure_report(job, f"the sandbox is not available: {error}")
    else:
        report = play_job(job, runner, worker_name())
    return receive_report(report)


def infrastructure_report(job: MatchJob, reason: str) -> MatchReport:
    return MatchReport(
        match=job.match,
        attempt=job.attempt,
        worker=worker_name(),
        sandbox="none",
        status=ReportStatus.INFRASTRUCTURE_ERROR,
        reason=reason,
    )


def receive_report(report: MatchReport) -> RunReport:
    """What the platform does with a report: record a played match once, or give the
    match back to the queue after an infrastructure error. A report for an attempt that
    no longer holds the match is discarded (logged)."""
    if report.status is ReportStatus.INFRASTRUCTURE_ERROR:
        return _infrastructure_error(report)
    try:
        recorded = record_report(report)
    except BaseException:
        release(report.match, report.attempt)
        raise
    timings = {
        **report.timings.model_dump(),
        "storage": recorded.storage_seconds,
        "rating_transaction": recorded.transaction_seconds,
    }
    if not recorded.recorded:
        log_event(
            MatchEvent.DISCARDED, match=report.match, status=recorded.status, worker=report.worker
        )
        return RunReport(RunResult.SKIPPED, timings=timings)
    log_event(
        MatchEvent.FINISHED,
        match=report.match,
        games=len(report.games),
        seats=len(report.games[0].bots),
        worker=report.worker,
        sandbox=report.sandbox,
        **{f"t_{name}": seconds for name, seconds in timings.items()},
    )
    return RunReport(RunResult.FINISHED, timings=timings)


def _not_claimed(match_id: int) -> RunReport:
    match = Match.objects.filter(pk=match_id).only("status", "started_at").first()
    if match is not None and match.status == MatchStatus.RUNNING and match.started_at:
        wait = (match.started_at + lease() - timezone.now()).total_seconds()
        log_event(MatchEvent.BUSY, match=match_id, retry_in=max(wait, 1.0))
        return RunReport(RunResult.BUSY, delay=max(wait, 1.0))
    log_event(MatchEvent.SKIPPED, match=match_id, status=match.status if match else "missing")
    return RunReport(RunResult.SKIPPED)


def _infrastructure_error(report: MatchReport) -> RunReport:
    match = Match.objects.filter(pk=report.match, attempt=report.attempt).first()
    if match is None or match.status != MatchStatus.RUNNING:
        log_event(MatchEvent.DISCARDED, match=report.match, worker=report.worker)
        return RunReport(RunResult.SKIPPED)
    reason = report.reason
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        reason = f"infrastructure error, {match.attempts} attempts: {reason}"
        fail(match.pk, reason, report.attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    release(match.pk, report.attempt)
    delay = retry_delay(match.attempts)
    log_event(MatchEvent.RETRY, match=match.pk, attempt=match.attempts, delay=delay, reason=reason)
    return RunReport(RunResult.RETRY, delay=delay, reason=reason)


def reap_matches() -> tuple[list[int], list[int]]:
    """Matches a dead worker left ``running`` beyond the lease go back to the queue (or
    fail after ``MATCH_MAX_ATTEMPTS``). Queued matches whose task the broker refused, and
    those waiting longer than the lease (their message may have been lost with the
    broker), are returned too, to be sent again. Returns (to send, failed)."""
    now = timezone.now()
    cutoff = now - lease()
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
                validation.match_returned(match_id)
                failed.append(match_id)
        elif still_stuck.update(status=MatchStatus.QUEUED, started_at=None):
            log_event(MatchEvent.REQUEUED, match=match_id, attempts=attempts)
            validation.match_returned(match_id)
            send.append(match_id)
    # A match queued a moment ago may not have reached its on-commit send yet.
    unsent = Q(sent=False, created_at__lt=now - timedelta(seconds=UNSENT_GRACE_SECONDS))
    waiting = Match.objects.filter(unsent | Q(created_at__lt=cutoff), status=MatchStatus.QUEUED)
    send += list(waiting.exclude(pk__in=send).values_list("pk", flat=True))
    return send, failed


def validate_version(version_id: int, sandbox: SandboxKind | None = None) -> str:
    """Play a queued version's validation match now, in this process (as a worker would);
    the version's status afterwards."""
    version = BotVersion.objects.get(pk=version_id)
    if version.validation_match_id is not None:
        run_match(version.validation_match_id, sandbox)
    version.refresh_from_db(fields=["status"])
    return str(version.status)
