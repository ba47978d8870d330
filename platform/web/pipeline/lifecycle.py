"""The states of a match on the platform and the moves between them that every part of the
pipeline shares (see docs/arena.md, "A match's life"): the lease, giving a match back to the
queue, failing it, and what a validation's version shows meanwhile.

Each move is a conditional UPDATE on the match row, so that two parties (a report and the
reaper, two reports) can never both make it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from web.bots.models import BotVersion, VersionStatus
from web.matches.models import Match, MatchStatus

from .events import MatchEvent, log_event
from .signals import announce_match_ended

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


def _held(match_id: int, attempt: uuid.UUID | None, started_before: datetime | None) -> Q:
    """The match while it is queued or running (under ``attempt``, when given; started
    before ``started_before``, when given: a lease that ran out)."""
    held = (Q(status=MatchStatus.QUEUED) | Q(status=MatchStatus.RUNNING)) & Q(pk=match_id)
    if attempt is not None:
        held &= Q(attempt=attempt)
    if started_before is not None:
        held &= Q(status=MatchStatus.RUNNING, started_at__lt=started_before)
    return held


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
        version_waiting(match_id)
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
    started before then. Whoever fails a match, its end is announced (``match_ended``)."""
    held = Match.objects.filter(_held(match_id, attempt, started_before))
    failed = bool(
        held.update(
            status=MatchStatus.FAILED, failure_reason=reason[:2000], finished_at=timezone.now()
        )
    )
    if failed:
        log_event(MatchEvent.FAILED, match=match_id, reason=reason)
        version_waiting(match_id)
        kind = Match.objects.filter(pk=match_id).values_list("kind", flat=True).first()
        announce_match_ended(match_id, kind or "")
    return failed


def version_validating(match_id: int) -> None:
    """A validation match started: its version is ``validating``."""
    BotVersion.objects.filter(validation_match_id=match_id, status=VersionStatus.QUEUED).update(
        status=VersionStatus.VALIDATING, validation_started_at=timezone.now()
    )


def version_waiting(match_id: int) -> None:
    """A validation match went back to the queue, or failed for good: its version waits
    again (``queued``), never rejected for it."""
    BotVersion.objects.filter(validation_match_id=match_id, status=VersionStatus.VALIDATING).update(
        status=VersionStatus.QUEUED, validation_started_at=None
    )
