"""What the platform does with what the arena sends back, for every kind of match (see
docs/arena.md, "A match's life"), and the reaper that finds what was lost.

- ``started`` (:func:`match_started`): the attempt's worker began; the match is
  ``running`` from then, and its lease starts.
- The report (:func:`receive_report`): checked against the job its attempt was sent
  (:mod:`arena.report_check`: the plan, the sources, every replay), then a played report of
  the current attempt is recorded once (:mod:`web.pipeline.recording`); an infrastructure
  error gives the match back to the queue with a growing delay, until
  ``MATCH_MAX_ATTEMPTS``; then it fails, unrated, with the reason. No bot is charged. A
  message of any other attempt is discarded (logged); one from another arena host than
  the attempt's, or a report that contradicts its job, is refused (logged, nothing
  recorded; the match waits for a genuine report, or for the reaper). The tasks
  (``tasks.py``) have checked the signature and pass its signer as ``host``.
- :func:`run_match` plays a match in this process through the same steps (the ``ladder``
  command, tests, the benchmark): issue, started, :func:`arena.playing.play_job`, report.
"""

from __future__ import annotations

import socket
import uuid
from datetime import timedelta
from time import perf_counter

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from arena import report_check
from arena.broker import queue_for
from arena.contract import MatchJob, MatchReport, MatchStarted, ReportStatus
from arena.playing import play_job
from web.bots.models import BotVersion
from web.matches.models import Match, MatchStatus
from web.sandbox import SandboxKind, current_sandbox, prepare_runner

from .dispatch import issue_job, queue_depths
from .events import MatchEvent, log_event
from .jobs import UnplayableMatch, job_for
from .recording import record_report
from .transitions import (
    RunReport,
    RunResult,
    bind_host,
    fail,
    lease,
    release,
    retry_delay,
    start,
)

#: A queued match not yet sent this long after its creation was refused by the broker.
UNSENT_GRACE_SECONDS = 10


def match_started(started: MatchStarted, host: str | None = None) -> bool:
    """The worker began the current attempt: the match runs on it from now (a redelivered
    job starts again, and its lease with it). ``host``: the arena host that signed the
    message (None in-process); the first to start an attempt holds it, and a ``started``
    from another host is refused. False, logged, for another attempt or host."""
    begun = start(started.match, started.attempt, started.worker, host)
    if not begun:
        holder_now = _other_host(started.match, started.attempt, host)
        if holder_now:
            log_event(
                MatchEvent.REFUSED,
                match=started.match,
                message="started",
                host=host,
                reason=f"its attempt was started by arena host {holder_now}",
            )
            return False
        log_event(
            MatchEvent.DISCARDED, match=started.match, message="started", worker=started.worker
        )
        return False
    return True


def _other_host(match_id: int, attempt: uuid.UUID, host: str | None) -> str:
    """The arena host holding ``attempt`` of the match, if it is not ``host``."""
    if not host:
        return ""
    holder = (
        Match.objects.filter(pk=match_id, attempt=attempt)
        .values_list("arena_host", flat=True)
        .first()
    )
    return holder if holder and holder != host else ""


def receive_report(report: MatchReport, host: str | None = None) -> RunReport:
    """Check a report against the job its attempt was sent (rebuilt from the database),
    then record a played report of the current attempt once, or give the match back to the
    queue after an infrastructure error (``RETRY``: send it again after ``delay``).
    ``host``: the arena host that signed it (None in-process). A report of any other
    attempt is discarded; one from another host than the attempt's, or that contradicts
    its job, is refused (``REFUSED``): logged, nothing recorded, the match waits on."""
    match = Match.objects.filter(pk=report.match, attempt=report.attempt).first()
    if match is None or match.status not in (MatchStatus.QUEUED, MatchStatus.RUNNING):
        log_event(MatchEvent.DISCARDED, match=report.match, worker=report.worker)
        return RunReport(RunResult.SKIPPED)
    if host and match.arena_host and match.arena_host != host:
        return _refused(report, host, f"its attempt was started by arena host {match.arena_host}")
    participants = list(match.participants.select_related("version").order_by("index"))
    try:
        job = job_for(match, participants, report.attempt)
    except UnplayableMatch as error:
        # Its sources are gone (a bot deleted meanwhile): nothing can be checked against.
        reason = f"its report cannot be checked: {error}"
        fail(match.pk, reason, report.attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    started = perf_counter()
    problems = report_check.problems(job, report)
    checked = perf_counter() - started
    if problems:
        return _refused(report, host, "; ".join(problems))
    if report.status is ReportStatus.INFRASTRUCTURE_ERROR:
        return _infrastructure_error(report, host)
    recorded = record_report(report, host)
    timings = {
        **report.timings.model_dump(),
        "report_check": checked,
        "storage": recorded.storage_seconds,
        "rating_transaction": recorded.transaction_seconds,
    }
    if recorded.refused:
        return _refused(report, host, recorded.refused)
    if not recorded.recorded:
        log_event(
            MatchEvent.DISCARDED, match=report.match, status=recorded.status, worker=report.worker
        )
        return RunReport(RunResult.SKIPPED, timings=timings)
    held = recorded.status == MatchStatus.HELD
    log_event(
        MatchEvent.HELD if held else MatchEvent.FINISHED,
        match=report.match,
        games=len(report.games),
        seats=len(report.games[0].bots),
        worker=report.worker,
        sandbox=report.sandbox,
        host=host or "",
        **{f"t_{name}": seconds for name, seconds in timings.items()},
    )
    return RunReport(RunResult.HELD if held else RunResult.FINISHED, timings=timings)


def _refused(report: MatchReport, host: str | None, reason: str) -> RunReport:
    log_event(
        MatchEvent.REFUSED,
        match=report.match,
        message="report",
        host=host or "",
        worker=report.worker,
        reason=reason[:2000],
    )
    return RunReport(RunResult.REFUSED, reason=reason)


def _infrastructure_error(report: MatchReport, host: str | None) -> RunReport:
    # The attempt is bound to the host that says it failed (if none held it yet).
    if host and not bind_host(report.match, report.attempt, host):
        holder = _other_host(report.match, report.attempt, host)
        if holder:
            return _refused(report, host, f"its attempt was started by arena host {holder}")
    match = Match.objects.filter(pk=report.match, attempt=report.attempt).first()
    if match is None or match.status not in (MatchStatus.QUEUED, MatchStatus.RUNNING):
        log_event(MatchEvent.DISCARDED, match=report.match, worker=report.worker)
        return RunReport(RunResult.SKIPPED)
    reason = report.reason
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        reason = f"infrastructure error, {match.attempts} attempts: {reason}"
        fail(match.pk, reason, report.attempt)
        return RunReport(RunResult.FAILED, reason=reason)
    delay = retry_delay(match.attempts)
    if not release(match.pk, report.attempt, delay):
        return RunReport(RunResult.SKIPPED)
    log_event(MatchEvent.RETRY, match=match.pk, attempt=match.attempts, delay=delay, reason=reason)
    return RunReport(RunResult.RETRY, delay=delay, reason=reason)


def worker_name() -> str:
    """Who plays matches in this process (:func:`run_match`), as match pages show it."""
    return socket.gethostname()


def run_match(match_id: int, sandbox: SandboxKind | None = None) -> RunReport:
    """Send, play (in this process's sandbox) and record one queued match, through the
    same steps as a worker's: safe to call any number of times."""
    job = issue_job(match_id)
    if not isinstance(job, MatchJob):
        return job
    try:
        runner = prepare_runner(sandbox or current_sandbox())
    except Exception as error:  # the sandbox cannot be used here: nobody's fault but ours
        report = MatchReport(
            match=job.match,
            attempt=job.attempt,
            worker=worker_name(),
            sandbox="none",
            status=ReportStatus.INFRASTRUCTURE_ERROR,
            reason=f"the sandbox is not available: {error}",
        )
    else:
        match_started(
            MatchStarted(match=job.match, attempt=job.attempt, worker=worker_name(), sandbox=runner)
        )
        report = play_job(job, runner, worker_name())
    return receive_report(report)


def unstarted_deadline() -> timedelta:
    """How long a sent job may wait unstarted, its queue empty, before it is presumed lost
    (``MATCH_UNSTARTED_SECONDS``: far shorter than the lease; a job still waiting in its
    queue is never presumed lost)."""
    return timedelta(seconds=settings.MATCH_UNSTARTED_SECONDS)


def reap_matches() -> tuple[list[int], list[int], list[int]]:
    """What a lost worker or a lost message left behind: matches running beyond the lease
    go back to the queue (or fail after ``MATCH_MAX_ATTEMPTS``); queued matches waiting to
    be sent (the broker refused them, or their retry is due) are to be sent; those sent
    longer than :func:`unstarted_deadline` ago without starting, while their queue holds
    no message (their job is not waiting behind others: it was lost with the broker), are
    to be sent again. A resend is not an attempt: no worker started the job. Returns (to
    send, to send again, failed)."""
    now = timezone.now()
    cutoff = now - lease()
    send: list[int] = []
    failed: list[int] = []
    stuck = Match.objects.filter(status=MatchStatus.RUNNING, started_at__lt=cutoff)
    for match_id, attempts, attempt in stuck.values_list("pk", "attempts", "attempt"):
        # The transitions' own moves, on the condition that the same attempt is still
        # stuck: a report or a restart that came meanwhile wins.
        if attempts >= settings.MATCH_MAX_ATTEMPTS:
            reason = f"its worker was lost {attempts} times"
            if fail(match_id, reason, attempt, started_before=cutoff):
                failed.append(match_id)
        elif release(match_id, attempt, started_before=cutoff):
            log_event(MatchEvent.REQUEUED, match=match_id, attempts=attempts)
            send.append(match_id)
    # A match queued a moment ago may not have reached its on-commit send yet.
    waiting = Match.objects.filter(
        Q(retry_at__isnull=True, created_at__lt=now - timedelta(seconds=UNSENT_GRACE_SECONDS))
        | Q(retry_at__lte=now),
        status=MatchStatus.QUEUED,
        sent_at__isnull=True,
    )
    send += list(waiting.exclude(pk__in=send).values_list("pk", flat=True))
    unstarted = Match.objects.filter(
        status=MatchStatus.QUEUED, sent_at__lt=now - unstarted_deadline()
    )
    rows = list(unstarted.values_list("pk", "kind", "debut"))
    depths = queue_depths() if rows else {}
    # A broker that does not answer cannot take a resend either: the next round tries.
    lost = [
        match_id
        for match_id, kind, debut in rows
        if depths is not None and depths.get(queue_for(kind, debut=debut), 0) == 0
    ]
    return send, lost, failed


def validate_version(version_id: int, sandbox: SandboxKind | None = None) -> str:
    """Play a queued version's validation match now, in this process (as a worker would);
    the version's status afterwards."""
    version = BotVersion.objects.get(pk=version_id)
    if version.validation_match_id is not None:
        run_match(version.validation_match_id, sandbox)
    version.refresh_from_db(fields=["status"])
    return str(version.status)
