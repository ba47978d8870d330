"""The bot page's chart data: Elo over time, placement distribution and head-to-head.

The maths is pure functions over plain tuples (unit-tested with hand-computed values); the
database is read by :func:`bot_stats` alone, in a fixed number of index-backed queries, so a
bot with ten thousand rated games costs the same four round trips as one with ten.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from django.db.models import QuerySet

from web.bots.models import Bot
from web.matches.models import MatchGame, MatchStatus, Participant, RatingChange

#: Points of the Elo line: enough for a 640-unit-wide chart, few enough for a light page.
ELO_POINTS = 200
#: Opponents in the head-to-head table.
HEAD_TO_HEAD = 10

#: One rated game of a match, as the bot ids of its seats, best placed first (``None``: a
#: seat whose bot was deleted or a built-in opponent).
GameSeats = Sequence[int | None]


@dataclass(frozen=True)
class RatingPoint:
    """The rating after the bot's ``index``-th rated game (0: before its first)."""

    index: int
    rating: float
    at: datetime
    match_id: int


@dataclass(frozen=True)
class EloHistory:
    points: list[RatingPoint]  # downsampled, in order
    games: int  # rated games in the whole history
    lowest: RatingPoint | None
    highest: RatingPoint | None

    @property
    def first(self) -> RatingPoint | None:
        return self.points[0] if self.points else None

    @property
    def last(self) -> RatingPoint | None:
        return self.points[-1] if self.points else None

    @property
    def downsampled(self) -> bool:
        return bool(self.points) and len(self.points) < self.games + 1


@dataclass(frozen=True)
class Placements:
    """How often the bot finished at each place at tables of one size."""

    size: int
    counts: tuple[int, ...]  # counts[0]: first places

    @property
    def games(self) -> int:
        return sum(self.counts)

    @property
    def shares(self) -> tuple[float, ...]:
        return tuple(count / self.games for count in self.counts) if self.games else ()

    @property
    def even_share(self) -> float:
        """Each place's share if placements were random: the reference line."""
        return 1 / self.size


@dataclass(frozen=True)
class HeadToHead:
    """The bot against one opponent, over the rated games they both played."""

    opponent_id: int
    games: int
    above: int  # games where the bot placed above the opponent
    place_difference: float  # mean of (opponent's place − bot's place): > 0, the bot ahead
    #: "owner/name" of the opponent; None: deleted, or not looked up yet.
    opponent_name: str | None = field(default=None, compare=False)

    @property
    def above_share(self) -> float:
        return self.above / self.games


@dataclass(frozen=True)
class BotStats:
    elo: EloHistory
    placements: list[Placements]
    head_to_head: list[HeadToHead]

    @property
    def empty(self) -> bool:
        return not self.elo.games and not self.placements


# --- pure functions -------------------------------------------------------------------


def rating_points(rows: Iterable[tuple[datetime, float, float, int]]) -> list[RatingPoint]:
    """History rows ``(created, before, after, match id)`` in order → one point per game,
    preceded by the rating before the first (so a single game is still a line)."""
    points: list[RatingPoint] = []
    for created, before, after, match_id in rows:
        if not points:
            points.append(RatingPoint(0, before, created, match_id))
        points.append(RatingPoint(len(points), after, created, match_id))
    return points


def downsample(points: Sequence[RatingPoint], limit: int) -> list[RatingPoint]:
    """At most ``limit`` points that keep the line's shape: the first, the last, and the
    lowest and highest of each of equal buckets in between (min-max decimation: unlike
    averaging or taking every n-th point, no peak or trough is ever lost)."""
    if limit < 4:
        raise ValueError("downsampling keeps at least the ends and one bucket's extremes")
    if len(points) <= limit:
        return list(points)
    inner = points[1:-1]
    buckets = (limit - 2) // 2
    kept = [points[0]]
    for b in range(buckets):
        bucket = inner[b * len(inner) // buckets : (b + 1) * len(inner) // buckets]
        low = min(bucket, key=lambda p: p.rating)
        high = max(bucket, key=lambda p: p.rating)
        kept.extend(sorted({low, high}, key=lambda p: p.index))
    kept.append(points[-1])
    return kept


def elo_history(points: Sequence[RatingPoint], limit: int = ELO_POINTS) -> EloHistory:
    if not points:
        return EloHistory([], 0, None, None)
    return EloHistory(
        downsample(points, limit),
        len(points) - 1,
        min(points, key=lambda p: p.rating),
        max(points, key=lambda p: p.rating),
    )


def placement_distribution(places: Iterable[tuple[int, int]]) -> list[Placements]:
    """``(place, table size)`` per game → counts per table size, smallest tables first.
    Sizes are kept apart because a 2nd place means something else at 3 and at 7 seats."""
    counts: dict[int, list[int]] = {}
    for place, size in places:
        if not 1 <= place <= size:
            raise ValueError(f"place {place} at a table of {size}")
        counts.setdefault(size, [0] * size)[place - 1] += 1
    return [Placements(size, tuple(counts[size])) for size in sorted(counts)]


def places_of(bot_id: int, games: Iterable[GameSeats]) -> list[tuple[int, int]]:
    """The bot's ``(place, table size)`` in each game it sat in."""
    return [(seats.index(bot_id) + 1, len(seats)) for seats in games if bot_id in seats]


def head_to_head(bot_id: int, games: Iterable[GameSeats], top: int) -> list[HeadToHead]:
    """The ``top`` opponents the bot met in most games (ties: lower id first), with how
    often it placed above each and the mean place difference."""
    together: dict[int, list[int]] = defaultdict(list)  # opponent → (its place − ours) per game
    for seats in games:
        if bot_id not in seats:
            continue
        mine = seats.index(bot_id)
        for theirs, opponent in enumerate(seats):
            if opponent is not None and opponent != bot_id:
                together[opponent].append(theirs - mine)
    ranked = sorted(together.items(), key=lambda item: (-len(item[1]), item[0]))[:top]
    return [
        HeadToHead(
            opponent,
            len(differences),
            sum(d > 0 for d in differences),
            sum(differences) / len(differences),
        )
        for opponent, differences in ranked
    ]


def games_as_bots(
    seats: Iterable[tuple[int, int, int | None]],
    games: Iterable[tuple[int, Sequence[int]]],
) -> list[list[int | None]]:
    """Participants ``(match id, index, bot id)`` and games ``(match id, placement as
    participant indexes)`` → each game's seats as bot ids, best first."""
    bots: dict[int, dict[int, int | None]] = defaultdict(dict)
    for match_id, index, bot_id in seats:
        bots[match_id][index] = bot_id
    return [[bots[match_id].get(index) for index in placement] for match_id, placement in games]


# --- the database ---------------------------------------------------------------------


def _name(bot: Bot | None) -> str | None:
    return None if bot is None else str(bot)


def _rated_matches(bot: Bot) -> QuerySet[Participant, Mapping[str, object]]:

    return Participant.objects.filter(
        bot=bot, match__rated=True, match__status=MatchStatus.FINISHED
    ).values("match_id")


def bot_stats(
    bot: Bot,
    *,
    elo_points: int = ELO_POINTS,
    opponents: int = HEAD_TO_HEAD,
) -> BotStats:
    """Everything the charts show, in four queries: the rating history (index
    ``rating_history``), the seats and the games of the bot's rated matches (both by match id,
    through their unique indexes, with the bot's matches as a subquery on
    ``participant_bot_recent``), and the head-to-head opponents."""

    history = (
        RatingChange.objects.filter(bot=bot)
        .order_by("created_at", "id")
        .values_list("created_at", "before", "after", "match_id")
    )
    matches = _rated_matches(bot)
    # No ORDER BY (the models' default orderings would sort 10,000 rows for nothing).
    seats = (
        Participant.objects.filter(match__in=matches)
        .order_by()
        .values_list("match_id", "index", "bot_id")
    )
    played = (
        MatchGame.objects.filter(match__in=matches).order_by().values_list("match_id", "placement")
    )
    games = games_as_bots(seats, played)
    rivals = head_to_head(bot.pk, games, opponents)
    named = Bot.objects.select_related("owner").in_bulk([r.opponent_id for r in rivals])
    return BotStats(
        elo_history(rating_points(history), elo_points),
        placement_distribution(places_of(bot.pk, games)),
        [replace(r, opponent_name=_name(named.get(r.opponent_id))) for r in rivals],
    )
