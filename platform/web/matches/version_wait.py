"""Where a bot's waiting version stands, for its page: the match it waits for (its
validation, or its first rated match), how many matches of that match's queue are ahead of
it, and an estimate of the wait from the last hour's pace of that queue.

The estimate is (matches ahead + 1) × the mean time between two matches of that queue
finishing over the last hour; none when nothing of that queue finished in the last hour. A
version whose first rated match is not queued yet counts the whole ladder queue ahead, and
so does a version whose validation match failed for good (beat queues it a new one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from operator import attrgetter

from django.db.models import Q
from django.utils import timezone

from arena.broker import queue_for
from arena.contract import MatchKind
from web.bots.models import PENDING_STATUSES, Bot, BotVersion

from .models import Match, MatchStatus, RatingChange
from .status import place_in_queue


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


def _wait(
    version: BotVersion, waiting_for: WaitingFor, match: Match | None, kind: str
) -> VersionWait:
    playing = match is not None and match.status == MatchStatus.RUNNING
    if match is None:
        ahead = Match.objects.filter(kind__in=_same_queue(kind), status=MatchStatus.QUEUED).count()
    else:
        ahead = 0 if playing else place_in_queue(match)
    pace = seconds_per_match(_same_queue(kind))
    return VersionWait(
        version=version,
        waiting_for=waiting_for,
        waited_seconds=(timezone.now() - version.created_at).total_seconds(),
        playing=playing,
        scheduled=match is not None,
        ahead=ahead,
        estimate_seconds=(ahead + 1) * pace if pace is not None else None,
    )


def version_wait(
    bot: Bot, versions: Sequence[BotVersion], *, active_rated_games: int | None = None
) -> VersionWait | None:
    """The bot's newest version waiting for its verdict, else its active version waiting for
    its first rated game; None when no version of the bot waits. ``versions``: the bot's
    versions (the page has them), ``active_rated_games``: its active version's rated games,
    when the caller knows them (else they are counted): a bot that waits for nothing costs
    no query."""
    pending = max(
        (v for v in versions if v.status in PENDING_STATUSES),
        key=attrgetter("number"),
        default=None,
    )
    if pending is not None:
        match = (
            Match.objects.filter(pk=pending.validation_match_id).first()
            if pending.validation_match_id
            else None
        )
        if match is not None and match.status not in (MatchStatus.QUEUED, MatchStatus.RUNNING):
            match = None  # failed for good: a new validation match is on its way
        return _wait(pending, WaitingFor.VERDICT, match, MatchKind.VALIDATION)
    version = bot.active_version
    if version is None or not bot.active or bot.games_since_version:
        return None
    if active_rated_games is None:
        active_rated_games = RatingChange.objects.filter(version=version).count()
    if active_rated_games:
        return None  # made active again by hand: it has rated games already
    first = (
        Match.objects.filter(
            Q(status=MatchStatus.QUEUED) | Q(status=MatchStatus.RUNNING),
            rated=True,
            participants__version=version,
        )
        .order_by("-status", "pk")  # a running one first ("running" > "queued")
        .first()
    )
    return _wait(version, WaitingFor.FIRST_RATED_GAME, first, first.kind if first else "ladder")
