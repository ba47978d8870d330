"""Where a bot's waiting version stands, for its page and for My bots: the match it waits
for (its validation, or its first rated match), how many matches of that match's queue are
ahead of it, and an estimate of the wait from the last hour's pace of that queue.

The estimate is (matches ahead + 1) × the mean time between two matches of that queue
finishing over the last hour; none when nothing of that queue finished in the last hour. A
version whose first rated match is not queued yet counts the whole ladder queue ahead, and
so does a version whose validation match failed for good (beat queues it a new one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from operator import attrgetter

from django.db.models import Count, Q
from django.utils import timezone

from arena.broker import queue_for
from arena.contract import MatchKind
from web.bots.models import PENDING_STATUSES, Bot, BotVersion

from .models import Match, MatchStatus, Participant, RatingChange
from .status import places_in_queue


class WaitingFor(StrEnum):
    VERDICT = "its validation verdict"
    FIRST_RATED_GAME = "its first rated game"


@dataclass(frozen=True, slots=True)
class VersionWait:
    version: BotVersion
    waiting_for: WaitingFor
    waited_seconds: float
    playing: bool  # its match is being played now
    scheduled: bool  # its match is queued (or playing); False: not yet planned by the ladder
    ahead: int  # matches of its queue ahead of it (the whole ladder queue when not scheduled)
    estimate_seconds: float | None

    @property
    def for_verdict(self) -> bool:
        return self.waiting_for is WaitingFor.VERDICT


def seconds_per_match(kinds: list[str]) -> float | None:
    """The mean time between two matches of these kinds finishing, over the last hour."""
    hour_ago = timezone.now() - timedelta(hours=1)
    finished = Match.objects.filter(
        kind__in=kinds, status=MatchStatus.FINISHED, finished_at__gte=hour_ago
    ).count()
    return 3600 / finished if finished else None


def _same_queue(kind: str) -> list[str]:
    return [k.value for k in MatchKind if queue_for(k) == queue_for(kind)]


@dataclass(frozen=True, slots=True)
class _Waiting:
    """What a version waits with: its match (None: not queued) and that match's kind."""

    version: BotVersion
    waiting_for: WaitingFor
    match: Match | None
    kind: str


def version_wait(
    bot: Bot, versions: Sequence[BotVersion], *, active_rated_games: int | None = None
) -> VersionWait | None:
    """The bot's newest version waiting for its verdict, else its active version waiting for
    its first rated game; None when no version of the bot waits. ``versions``: the bot's
    versions (the page has them), ``active_rated_games``: its active version's rated games,
    when the caller knows them (else they are counted): a bot that waits for nothing costs
    no query."""
    known = None
    if active_rated_games is not None and bot.active_version_id is not None:
        known = {bot.active_version_id: active_rated_games}
    return version_waits([(bot, versions)], rated_games=known)[0]


def version_waits(
    bots: Sequence[tuple[Bot, Sequence[BotVersion]]],
    *,
    rated_games: Mapping[int, int] | None = None,
) -> list[VersionWait | None]:
    """:func:`version_wait` of each (bot, its versions), in a number of queries that does
    not grow with the bots (My bots shows each bot's card). ``rated_games``: rated games by
    version id, when the caller knows them."""
    pending = [
        max(
            (v for v in versions if v.status in PENDING_STATUSES),
            key=attrgetter("number"),
            default=None,
        )
        for _, versions in bots
    ]
    validations = Match.objects.in_bulk(
        [v.validation_match_id for v in pending if v is not None and v.validation_match_id]
    )
    unrated = [
        bot.active_version
        for (bot, _), newest in zip(bots, pending, strict=True)
        if newest is None
        and bot.active_version is not None
        and bot.active
        and not bot.games_since_version
    ]
    counts = dict(rated_games or {})
    if rated_games is None and unrated:
        counts = dict(
            RatingChange.objects.filter(version__in=unrated)
            .values_list("version_id")
            .annotate(n=Count("id"))
            .values_list("version_id", "n")
        )
    # Made active again by hand: it has rated games already, and waits for none.
    debuting = [v for v in unrated if v is not None and not counts.get(v.pk)]
    first: dict[int, Match] = {}
    if debuting:
        seats = (
            Participant.objects.filter(
                Q(match__status=MatchStatus.QUEUED) | Q(match__status=MatchStatus.RUNNING),
                match__rated=True,
                version__in=debuting,
            )
            .select_related("match")
            .order_by("-match__status", "match_id")  # a running one first ("running" > "queued")
        )
        for seat in seats:
            first.setdefault(seat.version_id or 0, seat.match)
    waiting: list[_Waiting | None] = []
    for (bot, _), newest in zip(bots, pending, strict=True):
        if newest is not None:
            match = validations.get(newest.validation_match_id or 0)
            if match is not None and match.status not in (MatchStatus.QUEUED, MatchStatus.RUNNING):
                match = None  # failed for good: a new validation match is on its way
            waiting.append(_Waiting(newest, WaitingFor.VERDICT, match, MatchKind.VALIDATION))
        elif (version := bot.active_version) is not None and version in debuting:
            match = first.get(version.pk)
            kind = match.kind if match is not None else MatchKind.LADDER
            waiting.append(_Waiting(version, WaitingFor.FIRST_RATED_GAME, match, kind))
        else:
            waiting.append(None)
    return _with_queues(waiting)


def _with_queues(waiting: Sequence[_Waiting | None]) -> list[VersionWait | None]:
    """Each wait with its place in its queue and its estimate: the queues' figures read once
    per queue, however many versions wait in it."""
    queued = [w.match for w in waiting if w and w.match and w.match.status == MatchStatus.QUEUED]
    places = places_in_queue(queued) if queued else {}
    paces: dict[str, float | None] = {}
    lengths: dict[str, int] = {}
    now = timezone.now()
    waits: list[VersionWait | None] = []
    for w in waiting:
        if w is None:
            waits.append(None)
            continue
        queue = queue_for(w.kind)
        playing = w.match is not None and w.match.status == MatchStatus.RUNNING
        if w.match is None:
            if queue not in lengths:
                lengths[queue] = Match.objects.filter(
                    kind__in=_same_queue(w.kind), status=MatchStatus.QUEUED
                ).count()
            ahead = lengths[queue]
        else:
            ahead = 0 if playing else places[w.match.pk]
        if queue not in paces:
            paces[queue] = seconds_per_match(_same_queue(w.kind))
        pace = paces[queue]
        waits.append(
            VersionWait(
                version=w.version,
                waiting_for=w.waiting_for,
                waited_seconds=(now - w.version.created_at).total_seconds(),
                playing=playing,
                scheduled=w.match is not None,
                ahead=ahead,
                estimate_seconds=(ahead + 1) * pace if pace is not None else None,
            )
        )
    return waits
