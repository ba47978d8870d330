"""What the bot page keeps in the cache, as plain JSON: its chart data (``web.pages.charts``)
and its versions' figures (``web.pages.versions``), never markup. Read back, every field is
checked for its type (and the counts for their sense) before the page is drawn from it, and
the page escapes the one text it holds, an opponent's name: what the cache says can change a
number on the page at most, never its markup (web/caching.py)."""

from __future__ import annotations

from datetime import datetime

from web.caching import Codec, Json, WrongShape, items, number, optional, text, whole

from .charts import BotStats, EloHistory, HeadToHead, Placements, RatingPoint
from .versions import VersionFigures


def _point(point: RatingPoint) -> Json:
    return [point.index, point.rating, point.at.isoformat(), point.match_id]


def _read_point(value: Json) -> RatingPoint:
    index, rating, at, match_id = items(value, 4)
    return RatingPoint(whole(index), number(rating), _moment(at), whole(match_id))


def _moment(value: Json) -> datetime:
    moment = datetime.fromisoformat(text(value))  # ValueError for anything else
    if moment.tzinfo is None:
        raise WrongShape("a moment without its time zone")
    return moment


def _positive(value: Json) -> int:
    count = whole(value)
    if count < 1:
        raise WrongShape(f"expected a positive count, found {count}")
    return count


def _count(value: Json) -> int:
    count = whole(value)
    if count < 0:
        raise WrongShape(f"expected a count, found {count}")
    return count


def encode_stats(stats: BotStats) -> Json:
    elo = stats.elo
    return {
        "elo": [
            [_point(p) for p in elo.points],
            elo.games,
            None if elo.lowest is None else _point(elo.lowest),
            None if elo.highest is None else _point(elo.highest),
        ],
        "placements": [[p.size, list(p.counts)] for p in stats.placements],
        "head_to_head": [
            [h.opponent_id, h.games, h.above, h.place_difference, h.opponent_name]
            for h in stats.head_to_head
        ],
    }


def decode_stats(value: Json) -> BotStats:
    if not isinstance(value, dict) or set(value) != {"elo", "placements", "head_to_head"}:
        raise WrongShape("not a bot's chart data")
    points, games, lowest, highest = items(value["elo"], 4)
    elo = EloHistory(
        [_read_point(p) for p in items(points)],
        _count(games),
        optional(_read_point, lowest),
        optional(_read_point, highest),
    )
    if elo.points and (elo.lowest is None or elo.highest is None):
        raise WrongShape("a rating line without its lowest and highest points")
    return BotStats(
        elo,
        [_read_placements(p) for p in items(value["placements"])],
        [_read_head_to_head(h) for h in items(value["head_to_head"])],
    )


def _read_placements(value: Json) -> Placements:
    size, counts = items(value, 2)
    placements = Placements(_positive(size), tuple(_count(c) for c in items(counts)))
    if len(placements.counts) != placements.size or not placements.games:
        raise WrongShape(f"placements at {placements.size}-bot tables: {placements.counts}")
    return placements


def _read_head_to_head(value: Json) -> HeadToHead:
    opponent_id, games, above, difference, name = items(value, 5)
    return HeadToHead(
        whole(opponent_id),
        _positive(games),
        _count(above),
        number(difference),
        optional(text, name),
    )


#: A bot's chart data (``bot_stats``).
STATS: Codec[BotStats] = Codec(encode_stats, decode_stats)


def encode_figures(figures: dict[int, VersionFigures]) -> Json:
    return [
        [version_id, f.rated_games, f.elo_change, f.rated_matches, f.mean_place]
        for version_id, f in sorted(figures.items())
    ]


def decode_figures(value: Json) -> dict[int, VersionFigures]:
    found = {}
    for row in items(value):
        version_id, games, change, matches, place = items(row, 5)
        found[whole(version_id)] = VersionFigures(
            _count(games), number(change), _count(matches), optional(number, place)
        )
    return found


#: Each version's figures by version id (``versions.figures``).
FIGURES: Codec[dict[int, VersionFigures]] = Codec(encode_figures, decode_figures)
