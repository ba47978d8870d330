"""The ladder: rated matches among every bot with an active version, planned by
``arena.matchmaking`` from the candidates here, kept topped up to ``LADDER_QUEUE_TARGET``
queued matches per game (beat), each table a deal set (``LADDER_DUPLICATE``); when one is
played, its games are rated."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from arena.contract import MatchKind
from arena.matchmaking import Candidate, MatchmakingSettings, plan_tables
from cucumbers.games import rules_for
from cucumbers.match import GameOutcome
from web.bots.house import HOUSE_USERNAME
from web.bots.models import GAMES, Bot
from web.matches.models import Match, MatchStatus, Participant

from ..factory import create_deal_set, create_match
from ..kind import KindPolicy
from ..rating import rate


def table_sizes(game: str) -> MatchmakingSettings:
    """The configured table sizes, clipped to the game's legal range."""
    rules = rules_for(game)
    low = min(max(settings.LADDER_MIN_PLAYERS, rules.min_players), rules.max_players)
    high = max(min(settings.LADDER_MAX_PLAYERS, rules.max_players), low)
    return MatchmakingSettings(low, high)


def candidates(game: str) -> list[Candidate]:
    """Every bot on the game's ladder (active, with an active version), with its matches in
    the matchmaking window, queued ones included so that planning sees what is pending."""
    since = timezone.now() - timedelta(hours=settings.MATCHMAKING_WINDOW_HOURS)
    # A deal set counts once (its first rotation): a table, whatever its size.
    recent = Count(
        "participations",
        filter=Q(
            participations__match__kind=MatchKind.LADDER,
            participations__match__created_at__gte=since,
        )
        & (Q(participations__match__rotation__isnull=True) | Q(participations__match__rotation=0)),
    )
    bots = Bot.objects.on_leaderboard(game).annotate(recent=recent)
    rows = bots.values_list("pk", "rating", "recent", "games_since_version", "owner_id")
    house = User.objects.filter(username=HOUSE_USERNAME).values_list("pk", flat=True).first()
    sizes = recent_table_sizes(game, since)
    return [
        Candidate(
            pk,
            rating,
            recent_matches,
            provisional=played < settings.PROVISIONAL_GAMES,
            # The house's bots are reference strategies: they may share a table.
            owner=None if owner == house else owner,
            table_sizes=tuple(sorted(sizes[pk].items())),
        )
        for pk, rating, recent_matches, played, owner in rows
    ]


def recent_table_sizes(game: str, since: datetime) -> dict[int, Counter[int]]:
    """Each bot's ladder matches since ``since`` (queued ones too) by table size."""
    recent = Match.objects.filter(
        Q(rotation__isnull=True) | Q(rotation=0),  # a deal set is one table
        game=game,
        kind=MatchKind.LADDER,
        created_at__gte=since,
    )
    size_of = dict(recent.annotate(seats=Count("participants")).values_list("pk", "seats"))
    seats = Participant.objects.filter(match_id__in=recent.values("pk"), bot__isnull=False)
    sizes: dict[int, Counter[int]] = defaultdict(Counter)
    for bot_id, match_id in seats.values_list("bot_id", "match_id"):
        sizes[bot_id][size_of[match_id]] += 1
    return sizes


def queue_ladder_matches(
    game: str, count: int, rng: random.Random | None = None, *, send: bool = True
) -> list[Match]:
    """Plan rated tables for ``game`` and queue about ``count`` matches (fewer if too few
    bots): with duplicate deals (``LADDER_DUPLICATE``) each table is a deal set, one match
    per seat rotation, and tables are queued until ``count`` matches are; ``send`` as for
    :func:`create_match`."""
    rng = rng or random.Random()
    plans = plan_tables(candidates(game), count, table_sizes(game), rng)
    ids = {bot_id for table in plans for bot_id in table}
    bots = Bot.objects.select_related("owner", "active_version").in_bulk(ids)
    queued: list[Match] = []
    with transaction.atomic():
        for table in plans:
            if len(queued) >= count:
                break
            seated = [bots[bot_id] for bot_id in table]
            if settings.LADDER_DUPLICATE:
                queued += create_deal_set(
                    game, MatchKind.LADDER, seated, rated=True, rng=rng, send=send
                )
            else:
                queued.append(
                    create_match(game, MatchKind.LADDER, seated, rated=True, rng=rng, send=send)
                )
    return queued


def queue_depth(game: str) -> int:
    return Match.objects.filter(game=game, kind=MatchKind.LADDER, status=MatchStatus.QUEUED).count()


def top_up(target: int | None = None) -> dict[str, int]:
    """Queue enough ladder matches that each game has ``target`` waiting
    (``LADDER_QUEUE_TARGET``); returns how many were queued per game."""
    target = settings.LADDER_QUEUE_TARGET if target is None else target
    queued = {}
    for game in GAMES:
        missing = target - queue_depth(game)
        queued[game] = len(queue_ladder_matches(game, missing)) if missing > 0 else 0
    return queued


class LadderPolicy(KindPolicy):
    """A played ladder match is rated, game by game."""

    kind = MatchKind.LADDER

    def recorded(
        self, match: Match, participants: Sequence[Participant], outcomes: Sequence[GameOutcome]
    ) -> None:
        if match.rated:
            rate(match, participants, outcomes)
