"""What the landing page shows besides the words: a recent top match's replay playing in the
viewer, live figures (bots playing, games today, the queue) and the next tournament."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db.models import Avg, Sum
from django.utils import timezone

from arena.contract import MatchKind
from web.bots.models import Bot
from web.matches.access import visible_matches
from web.matches.models import Match, MatchGame, MatchStatus

#: The recent public matches among which the featured one is the strongest table.
FEATURED_AMONG = 30


@dataclass(frozen=True, slots=True)
class LiveFigures:
    bots: int
    games_today: int
    queued: int
    playing: int


def live_figures() -> LiveFigures:
    """Bots on a leaderboard, games finished since midnight UTC, matches waiting and
    playing: each one count over an index."""
    midnight = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0)
    today = Match.objects.filter(status=MatchStatus.FINISHED, finished_at__gte=midnight)
    return LiveFigures(
        bots=Bot.objects.filter(active=True, active_version__isnull=False).count(),
        games_today=today.aggregate(n=Sum("games_planned"))["n"] or 0,
        queued=Match.objects.filter(status=MatchStatus.QUEUED).count(),
        playing=Match.objects.filter(status=MatchStatus.RUNNING).count(),
    )


def featured_game() -> MatchGame | None:
    """The first game of the recent public match whose bots were rated highest (a match
    whose deal set is still being played keeps its replays private: skipped)."""
    # The recent ids first (a walk down the finished matches' index), then their strength:
    # aggregated in one query, the whole history would be grouped before the limit.
    ids = list(
        visible_matches(AnonymousUser())
        .filter(status=MatchStatus.FINISHED, kind__in=[MatchKind.LADDER, MatchKind.TOURNAMENT])
        .order_by("-finished_at", "-id")
        .values_list("pk", flat=True)[:FEATURED_AMONG]
    )
    recent = Match.objects.filter(pk__in=ids).annotate(strength=Avg("participants__rating_before"))
    ranked = sorted(recent, key=lambda m: m.strength or 0, reverse=True)
    for match in ranked:
        if match.deal_set_pending:
            continue
        game = match.games.exclude(replay="").order_by("number").first()
        if game is not None:
            return game
    return None
