"""A match's states and every move between them: the one module that writes
``Match.status`` (and the attempt it is held under). Views, tasks, the reaper, commands and
the admin all move a match through these functions (see docs/arena.md, "A match's life")::

    queued ──issue──▶ queued+sent ──start──▶ running ──finish──▶ finished
       ▲                   │                    │
       └────── release ────┴─────── release ────┤   (an infrastructure error, a lost worker)
    failed ◀───────────── fail ─────────────────┘   (the attempt cap, an unplayable match)
    failed ──requeue──▶ queued                      (staff)

Each move is a conditional UPDATE on the match row (or runs under its row lock), so two
parties (a report and the reaper, two reports) can never both make it. Each move's side
effects are here too: its log line, the match kind's hook (:mod:`web.pipeline.kind`: a
validation's version shows ``validating``, a tournament finishes) and, for a match that
ended, the kind's ``ended`` hook once the transaction commits.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from cucumbers.match import GameOutcome
from web.matches.models import Match, MatchStatus, Participant

from .events import MatchEvent, log_event
from .kind import policy_for

logger = logging.getLogger(__name__)

#: Longest wait between two attempts after infrastructure errors.
MAX_RETRY_SECONDS = 600


class RunResult(StrEnum):
    FINISHED = "finished"
    FAILED = "failed"
    RETRY = "retry"  # an infrastructure error: sent again after ``delay``
    SKIPPED = "skipped"  # nothing to do: finished, failed, or not this attempt's to record
    REFUSED = "refused"  # a report that cannot be trusted: nothing recorded, the match waits


@dataclass(frozen=True, slots=True)
class RunReport:
    """What became of a match after a step."""

    result: RunResult
    delay: float = 0.0
    reason: str = ""
    timings: dict[str, float] = field(default_factory=dict)


def lease() -> timedelta:
    """How long a started attempt holds its match (no task outlives the hard time limit);
    also how long a sent job may wait unstarted before it is presumed lost."""
    return timedelta(seconds=settings.MATCH_LEASE_SECONDS)


def retry_delay(attempts: int) -> float:
    """Exponential backoff after the ``attempts``-th attempt failed."""
    return float(min(MAX_RETRY_SECONDS, settings.MATCH_RETRY_SECONDS * 2 ** max(0, attempts - 1)))


def _kind_of(match_id: int) -> str:
    return Match.objects.filter(pk=match_id).values_list("kind", flat=True).first() or ""


def _held(match_id: int, attempt: uuid.UUID | None, started_before: datetime | None) -> Q:
    """The match while it is queued or running (under ``attempt``, when given; started
    before ``started_before``, when given: a lease that ran out)."""
    held = (Q(status=MatchStatus.QUEUED) | Q(status=MatchStatus.RUNNING)) & Q(pk=match_id)
    if attempt is not None:
        held &= Q(attempt=attempt)
    if started_before is not None:
        held &= Q(status=MatchStatus.RUNNING, started_at__lt=started_before)
    return held


def issue(match_id: int, attempt: uuid.UUID, resend_before: datetime | None = None) -> bool:
    """Give a queued match that is waiting to be sent the new ``attempt`` (counted); True
    only for the one caller that did. With ``resend_before``, a queued match sent before
    then is taken too (its message may have been lost with the broker)."""
    sendable = Q(status=MatchStatus.QUEUED, sent_at__isnull=True)
    if resend_before is not None:
        sendable |= Q(status=MatchStatus.QUEUED, sent_at__lt=resend_before)
    issued = (
        Match.objects.filter(sendable, pk=match_id).update(
            attempt=attempt,
            attempts=F("attempts") + 1,
            sent_at=timezone.now(),
            retry_at=None,
            arena_host="",
        )
        == 1
    )
    if issued:
        row = Match.objects.filter(pk=match_id).values_list("attempts", "kind").first()
        if row is not None:
            log_event(MatchEvent.ISSUED, match=match_id, attempt=row[0], kind=row[1])
    return issued


def unissue(match_id: int, attempt: uuid.UUID) -> None:
    """The broker did not take ``attempt``'s job: not an attempt after all (nobody can play
    it); the match waits, unsent, for the reaper."""
    Match.objects.filter(pk=match_id, attempt=attempt).update(
        attempt=None, sent_at=None, attempts=F("attempts") - 1
    )


def start(match_id: int, attempt: uuid.UUID, worker: str, host: str | None = None) -> bool:
    """The worker began ``attempt``: the match runs from now (a redelivered job starts
    again, and its lease with it). ``host``: the arena host that signed the message (None
    in-process); the first to start an attempt holds it. False for another attempt or
    host (the caller logs why)."""
    holder = Q(arena_host="") | Q(arena_host=host) if host else Q()
    begun = bool(
        Match.objects.filter(
            Q(status=MatchStatus.QUEUED) | Q(status=MatchStatus.RUNNING),
            holder,
            pk=match_id,
            attempt=attempt,
        ).update(
            status=MatchStatus.RUNNING,
            started_at=timezone.now(),
            worker=worker,
            **({"arena_host": host} if host else {}),
        )
    )
    if begun:
        log_event(MatchEvent.STARTED, match=match_id, worker=worker, host=host or "")
        policy_for(_kind_of(match_id)).started(match_id)
    return begun


def bind_host(match_id: int, attempt: uuid.UUID, host: str) -> bool:
    """Bind ``attempt`` to ``host`` unless another host holds it (a report that overtook
    its ``started``); True when ``host`` holds it now."""
    return bool(
        Match.objects.filter(
            Q(arena_host="") | Q(arena_host=host), pk=match_id, attempt=attempt
        ).update(arena_host=host)
    )


def release(
    match_id: int,
    attempt: uuid.UUID | None,
    delay: float = 0.0,
    *,
    started_before: datetime | None = None,
) -> bool:
    """Give the match ``attempt`` holds back to the queue, to be sent again (under a new
    attempt) no sooner than ``delay`` seconds from now; with ``started_before``, only if
    that attempt started before then (the reaper: its lease ran out). ``attempt`` None:
    whatever attempt holds it."""
    released = bool(
        Match.objects.filter(_held(match_id, attempt, started_before)).update(
            status=MatchStatus.QUEUED,
            started_at=None,
            attempt=None,
            sent_at=None,
            retry_at=timezone.now() + timedelta(seconds=delay),
        )
    )
    if released:
        policy_for(_kind_of(match_id)).waiting(match_id)
    return released


def fail(
    match_id: int,
    reason: str,
    attempt: uuid.UUID | None = None,
    *,
    started_before: datetime | None = None,
) -> bool:
    """Mark a queued or running match failed (unrated: nothing of it is recorded); with
    ``attempt``, only if that attempt still holds it; with ``started_before``, only if it
    started before then. Whoever fails a match, its kind hears that it ended."""
    held = Match.objects.filter(_held(match_id, attempt, started_before))
    failed = bool(
        held.update(
            status=MatchStatus.FAILED, failure_reason=reason[:2000], finished_at=timezone.now()
        )
    )
    if failed:
        log_event(MatchEvent.FAILED, match=match_id, reason=reason)
        kind = _kind_of(match_id)
        policy_for(kind).waiting(match_id)
        _announce_ended(match_id, kind)
    return failed


def finish(
    match: Match,
    participants: Sequence[Participant],
    outcomes: Sequence[GameOutcome],
    *,
    sandbox: str,
    worker: str,
) -> None:
    """Inside the recording transaction, with the match row locked and still held by the
    report's attempt, its games and standings saved: what the kind makes of them, then
    ``finished``. The kind hears that it ended once this commits."""
    policy_for(match.kind).recorded(match, participants, outcomes)
    match.status = MatchStatus.FINISHED
    match.finished_at = timezone.now()
    match.sandbox = sandbox
    match.worker = worker
    match.failure_reason = ""
    fields = ["status", "finished_at", "sandbox", "worker", "failure_reason", "arena_host"]
    match.save(update_fields=fields)
    _announce_ended(match.pk, match.kind)


def requeue(match_ids: Sequence[int]) -> list[int]:
    """Queue failed matches again (staff), with their attempts counted afresh; the ids of
    those that were. The caller sends them (after its transaction commits)."""
    with transaction.atomic():
        failed = list(
            Match.objects.select_for_update()
            .filter(pk__in=match_ids, status=MatchStatus.FAILED)
            .values_list("pk", flat=True)
        )
        Match.objects.filter(pk__in=failed).update(
            status=MatchStatus.QUEUED,
            failure_reason="",
            started_at=None,
            finished_at=None,
            attempts=0,
            attempt=None,
            sent_at=None,
            retry_at=None,
        )
    for match_id in failed:
        log_event(MatchEvent.REQUEUED, match=match_id, by="staff")
    return failed


def _announce_ended(match_id: int, kind: str) -> None:
    """Tell the kind, once the current transaction commits (at once outside one), that the
    match ended; a failing hook is logged, never raised into the pipeline."""

    def tell() -> None:
        try:
            policy_for(kind).ended(match_id)
        except Exception:
            logger.exception("the %s policy failed on match %s's end", kind, match_id)

    transaction.on_commit(tell)
