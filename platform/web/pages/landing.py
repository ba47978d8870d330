"""What the landing page shows besides the words: a recent top match's replay playing in the
viewer, live figures (bots playing, games today, the queue) and the next tournament."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.db.models import Avg, Sum
from django.utils import timezone

from arena.contract import MatchKind
from web.bots.models import Bot
from web.caching import Codec, Json, items, remembered, whole
from web.matches.access import visible_matches
from web.matches.models import Match, MatchGame, MatchStatus

#: The recent public matches among which the featured one is the strongest table.
FEATURED_AMONG = 30
#: How long the live figures are kept (web/caching.py): the landing page is the page a
#: crowd arrives on, and four counts a visit add up; figures a few seconds old are still
#: the arena now. The key names what they depend on: nothing but the time.
LIVE_FIGURES_SECONDS = 15
LIVE_FIGURES_KEY = "landing:live-figures"


@dataclass(frozen=True, slots=True)
class LiveFigures:
    bots: int
    games_today: int
    queued: int
    playing: int


def _encode(figures: LiveFigures) -> Json:
    return [figures.bots, figures.games_today, figures.queued, figures.playing]


def _decode(value: Json) -> LiveFigures:
    bots, games_today, queued, playing = (whole(part) for part in items(value, 4))
    return LiveFigures(bots, games_today, queued, playing)


#: The four counts as a JSON list, each checked to be a whole number when read back.
LIVE_FIGURES: Codec[LiveFigures] = Codec(encode=_encode, decode=_decode)


def live_figures() -> LiveFigures:
    """The live figures, through the cache for ``LIVE_FIGURES_SECONDS``."""
    return remembered(LIVE_FIGURES_KEY, LIVE_FIGURES_SECONDS, count_live_figures, LIVE_FIGURES)


def count_live_figures() -> LiveFigures:
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
        if not match.results_public:
            continue
        game = match.games.exclude(replay="").order_by("number").first()
        if game is not None:
            return game
    return None
