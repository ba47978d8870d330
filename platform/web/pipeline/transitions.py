"""A match's states and every move between them: the one module that writes
``Match.status`` (and the attempt it is held under). Views, tasks, the reaper, commands and
the admin all move a match through these functions (see docs/arena.md, "A match's life")::

    queued ──issue──▶ queued+sent ──start──▶ running ──finish──▶ finished
       ▲                   │                    │ ╲
       │                   │                    │  hold ──▶ held ──finish_rotation──▶ finished
       └────── release ────┴─────── release ────┤   (an infrastructure error, a lost worker)
    failed ◀───────────── fail ─────────────────┘   (the attempt cap, an unplayable match)
    failed ──requeue──▶ queued                      (staff)

A deal set (one match per seat rotation of the same deals) moves as one: a rotation whose
set still has rotations to play is ``held`` when recorded, and the set's last report moves
every rotation to ``finished`` together (ratings applied then, in rotation order); a
rotation that fails makes the whole set void (every rotation not finished fails with it).
Whenever a match may have been seen before it was played (a retry, a re-seat, a requeue)
it gets a fresh seed (:func:`reseed`), its whole set with it while no other rotation of the
set has begun; a set that has begun keeps its seed, which only its frozen bots and the arena
host have seen.

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
from django.db.models import (
    Case,
    ExpressionWrapper,
    F,
    PositiveSmallIntegerField,
    Q,
    When,
)
from django.db.models.expressions import CombinedExpression
from django.utils import timezone

from cucumbers.match import GameOutcome
from web.matches.deals import fresh_seed, played_seed
from web.matches.models import Match, MatchGame, MatchStatus, Participant
from web.matches.replays import delete_files_on_commit

from .events import MatchEvent, log_event
from .kind import Placed, policy_for

logger = logging.getLogger(__name__)

#: Longest wait between two attempts after infrastructure errors.
MAX_RETRY_SECONDS = 600


class RunResult(StrEnum):
    FINISHED = "finished"
    HELD = "held"  # recorded: a rotation whose deal set's other rotations are still to play
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


def _attempts_plus(count: int) -> ExpressionWrapper[CombinedExpression]:
    return ExpressionWrapper(F("attempts") + count, output_field=PositiveSmallIntegerField())


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
    """Give a queued match that is waiting to be sent the new ``attempt``; True only for
    the one caller that did. With ``resend_before``, a queued match sent before then is
    taken too (its message may have been lost with the broker). Attempts count work: a
    send is counted, a resend of a job no worker started is not."""
    sendable = Q(status=MatchStatus.QUEUED, sent_at__isnull=True)
    if resend_before is not None:
        sendable |= Q(status=MatchStatus.QUEUED, sent_at__lt=resend_before)
    issued = (
        Match.objects.filter(sendable, pk=match_id).update(
            attempt=attempt,
            attempts=Case(
                When(sent_at__isnull=True, then=_attempts_plus(1)), default=F("attempts")
            ),
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


def recall(match_id: int) -> bool:
    """Take back the attempt of a queued match that has not started (its seats changed):
    it waits to be sent again under a new one; a worker's message of the old attempt is
    then discarded. Not counted: the attempt never started. True when it was queued."""
    recalled = bool(
        Match.objects.filter(pk=match_id, status=MatchStatus.QUEUED).update(
            attempt=None,
            sent_at=None,
            arena_host="",
            attempts=Case(
                When(sent_at__isnull=False, attempts__gt=0, then=_attempts_plus(-1)),
                default=F("attempts"),
                output_field=PositiveSmallIntegerField(),
            ),
        )
    )
    if recalled:
        log_event(MatchEvent.RECALLED, match=match_id)
    return recalled


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
        # Its deals were dealt to the attempt that failed: the next one deals new ones.
        reseed(match_id)
        policy_for(_kind_of(match_id)).waiting(match_id)
    return released


def lock_table(match_id: int) -> list[Match]:
    """The rows of the match's table locked, in id order: every rotation of its deal set,
    or the match alone. Everything that moves a set takes its rows so, in this one order,
    so that two of them never wait on each other in a cycle."""
    deal_set = Match.objects.filter(pk=match_id).values_list("deal_set", flat=True).first()
    table = Match.objects.select_for_update().order_by("pk")
    return list(table.filter(deal_set=deal_set) if deal_set else table.filter(pk=match_id))


def reseed(match_id: int) -> bool:
    """Give a queued match a fresh seed (its deals owe nothing to the old one), with every
    rotation of its deal set while none of them has begun: their attempts not yet started
    are taken back (:func:`recall`), to be sent again by the reaper. A set of which another
    rotation has begun keeps its seed (a set is one deal): False then."""
    deal_set = Match.objects.filter(pk=match_id).values_list("deal_set", flat=True).first()
    with transaction.atomic():
        rows = lock_table(match_id)
        if not rows or any(row.status != MatchStatus.QUEUED for row in rows):
            return False
        Match.objects.filter(pk__in=[row.pk for row in rows]).update(
            seed=fresh_seed(), deal_seed=None
        )
        for other in rows:
            if other.pk != match_id and other.sent_at is not None:
                recall(other.pk)
    log_event(MatchEvent.RESEEDED, match=match_id, deal_set=deal_set or "")
    return True


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
        _void_set_of(match_id, reason)
    return failed


def _void_set_of(match_id: int, reason: str) -> None:
    """A rotation failed: its deal set cannot be played whole, so it is void as a whole:
    every other rotation not finished fails too, unrated (the held ones keep their games,
    shown from now on: their seed is never played again, a requeue deals afresh)."""
    deal_set = Match.objects.filter(pk=match_id).values_list("deal_set", flat=True).first()
    if deal_set is None:
        return
    why = f"its deal set is void: match #{match_id} failed ({reason})"[:2000]
    others = Match.objects.filter(
        deal_set=deal_set, status__in=(MatchStatus.QUEUED, MatchStatus.RUNNING, MatchStatus.HELD)
    ).exclude(pk=match_id)
    for other in others.order_by("pk"):
        voided = Match.objects.filter(pk=other.pk, status=other.status).update(
            status=MatchStatus.FAILED,
            failure_reason=why,
            finished_at=other.finished_at or timezone.now(),
            deal_seed=played_seed(other) if other.status == MatchStatus.HELD else None,
        )
        if voided:
            log_event(MatchEvent.FAILED, match=other.pk, reason=why)
            policy_for(other.kind).waiting(other.pk)
            _announce_ended(other.pk, other.kind)


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
    match.deal_seed = played_seed(match)  # published with the results
    fields = [
        "status",
        "finished_at",
        "sandbox",
        "worker",
        "failure_reason",
        "arena_host",
        "deal_seed",
    ]
    match.save(update_fields=fields)
    _announce_ended(match.pk, match.kind)


def hold(match: Match, *, sandbox: str, worker: str) -> None:
    """Inside the recording transaction, the deal set's rows locked, its games saved: a
    rotation whose set still has rotations to play is played; what it is worth waits for
    them (``held``: its results, replays and seed shown to nobody)."""
    match.status = MatchStatus.HELD
    match.finished_at = timezone.now()
    match.sandbox = sandbox
    match.worker = worker
    match.failure_reason = ""
    fields = ["status", "finished_at", "sandbox", "worker", "failure_reason", "arena_host"]
    match.save(update_fields=fields)


def finish_rotation(
    match: Match,
    participants: Sequence[Participant],
    games: Sequence[Placed],
    *,
    sandbox: str | None = None,
    worker: str | None = None,
) -> None:
    """Inside the recording transaction of a deal set's last rotation (the set's rows
    locked), for each rotation in order, its standings saved: what its kind makes of a set
    played whole (ratings), then ``finished``, its seed published. ``sandbox`` and
    ``worker``: the last rotation's own (a held rotation has its)."""
    policy_for(match.kind).set_recorded(match, participants, games)
    match.status = MatchStatus.FINISHED
    match.deal_seed = played_seed(match)  # published with the results
    match.failure_reason = ""
    fields = ["status", "finished_at", "deal_seed", "failure_reason"]
    if match.finished_at is None or sandbox is not None:
        match.finished_at = timezone.now()
    if sandbox is not None and worker is not None:
        match.sandbox, match.worker = sandbox, worker
        fields += ["sandbox", "worker", "arena_host"]
    match.save(update_fields=fields)
    _announce_ended(match.pk, match.kind)


def requeue(match_ids: Sequence[int]) -> list[int]:
    """Queue failed matches again (staff), with their attempts counted afresh and a fresh
    seed (the failed attempts' deals may have been seen); a rotation of a void deal set
    takes its whole set with it, every rotation dealt the same new seed and the games of
    its void rotations deleted. The ids of those queued again; the caller sends them
    (after its transaction commits)."""
    with transaction.atomic():
        chosen = list(Match.objects.filter(pk__in=match_ids, status=MatchStatus.FAILED))
        groups: dict[object, list[int]] = {}
        for match in chosen:
            if match.deal_set is None:
                groups[match.pk] = [match.pk]
            elif match.deal_set not in groups:
                rotations = Match.objects.filter(deal_set=match.deal_set).order_by("pk")
                statuses = set(rotations.values_list("status", flat=True))
                if statuses == {MatchStatus.FAILED}:  # a set finished in part stays as it is
                    groups[match.deal_set] = list(rotations.values_list("pk", flat=True))
        requeued: list[int] = []
        for ids in groups.values():
            locked = list(
                Match.objects.select_for_update()
                .filter(pk__in=ids, status=MatchStatus.FAILED)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
            if len(locked) != len(ids):
                continue  # moved meanwhile
            games = MatchGame.objects.filter(match_id__in=ids)
            delete_files_on_commit(games)
            games.delete()
            Participant.objects.filter(match_id__in=ids).update(
                placement=None,
                mean_place=None,
                wins=0,
                faults=0,
                rating_before=None,
                rating_after=None,
            )
            Match.objects.filter(pk__in=ids).update(
                status=MatchStatus.QUEUED,
                failure_reason="",
                started_at=None,
                finished_at=None,
                attempts=0,
                attempt=None,
                sent_at=None,
                retry_at=None,
                seed=fresh_seed(),
                deal_seed=None,
                sandbox="",
                worker="",
                arena_host="",
            )
            requeued += ids
    for match_id in requeued:
        log_event(MatchEvent.REQUEUED, match=match_id, by="staff")
    return requeued


def _announce_ended(match_id: int, kind: str) -> None:
    """Tell the kind, once the current transaction commits (at once outside one), that the
    match ended; a failing hook is logged, never raised into the pipeline."""

    def tell() -> None:
        try:
            policy_for(kind).ended(match_id)
        except Exception:
            logger.exception("the %s policy failed on match %s's end", kind, match_id)

    transaction.on_commit(tell)
