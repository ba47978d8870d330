"""The bot page's chart maths (web.pages.charts, web.pages.chart_svg): pure functions checked
against hand-computed values, no database."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from web.pages.chart_svg import elo_chart, nice_ticks, placement_chart
from web.pages.charts import (
    EloHistory,
    HeadToHead,
    Placements,
    RatingPoint,
    downsample,
    elo_history,
    games_as_bots,
    head_to_head,
    placement_distribution,
    places_of,
    rating_points,
)

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def walk(n: int, seed: int = 3) -> list[RatingPoint]:
    """A random rating walk of ``n`` points (index 0..n-1)."""
    rng = random.Random(seed)
    rating, points = 1500.0, []
    for i in range(n):
        points.append(RatingPoint(i, rating, T0 + timedelta(minutes=i), 1 + i // 5))
        rating += rng.uniform(-16, 16)
    return points


# --- Elo ------------------------------------------------------------------------------


def test_rating_points_start_from_the_rating_before_the_first_game() -> None:
    rows = [(T0, 1500.0, 1510.0, 7), (T0, 1510.0, 1505.0, 7), (T0, 1505.0, 1490.0, 8)]
    points = rating_points(rows)
    assert [(p.index, p.rating, p.match_id) for p in points] == [
        (0, 1500.0, 7),
        (1, 1510.0, 7),
        (2, 1505.0, 7),
        (3, 1490.0, 8),
    ]
    history = elo_history(points)
    assert history.games == 3 and not history.downsampled
    assert (history.lowest.index, history.highest.index) == (3, 1)  # type: ignore[union-attr]


def test_no_history_is_an_empty_chart() -> None:
    assert rating_points([]) == []
    history = elo_history([])
    assert history == EloHistory([], 0, None, None)
    assert history.first is None and not history.downsampled and elo_chart(history) is None


def test_a_short_history_is_not_downsampled() -> None:
    points = walk(150)
    assert downsample(points, 200) == points


def test_downsampling_keeps_the_ends_and_every_extreme() -> None:
    points = walk(10_001)
    # A one-game spike and a one-game trough, far from the ends: averaging or taking every
    # n-th point would lose them.
    points[4321] = RatingPoint(4321, 2600.0, points[4321].at, 1)
    points[7777] = RatingPoint(7777, 400.0, points[7777].at, 1)
    kept = downsample(points, 200)
    assert len(kept) <= 200
    assert kept[0] == points[0] and kept[-1] == points[-1]
    assert points[4321] in kept and points[7777] in kept
    indexes = [p.index for p in kept]
    assert indexes == sorted(set(indexes)), "in order, no point twice"
    history = elo_history(points, 200)
    assert history.downsampled and history.games == 10_000
    assert (history.highest, history.lowest) == (points[4321], points[7777])


@pytest.mark.parametrize("limit", [4, 5, 50])
def test_downsampling_respects_small_limits(limit: int) -> None:
    kept = downsample(walk(1000), limit)
    assert 3 <= len(kept) <= limit


def test_downsampling_needs_room_for_the_ends_and_a_bucket() -> None:
    with pytest.raises(ValueError):
        downsample(walk(10), 3)


# --- placements and head-to-head ------------------------------------------------------

# Three rated games (seats as bot ids, best first): bot 1 wins the first, is second in the
# other two; bot 2 is a deleted bot's seat (None) in the last.
GAMES: list[list[int | None]] = [[1, 2, 3], [2, 1, 3], [2, 1], [3, None, 1, 4]]


def test_places_and_their_distribution_by_table_size() -> None:
    assert places_of(1, GAMES) == [(1, 3), (2, 3), (2, 2), (3, 4)]
    assert places_of(9, GAMES) == []
    distribution = placement_distribution(places_of(1, GAMES))
    assert distribution == [
        Placements(2, (0, 1)),
        Placements(3, (1, 1, 0)),
        Placements(4, (0, 0, 1, 0)),
    ]
    three = distribution[1]
    assert three.games == 2 and three.shares == (0.5, 0.5, 0.0)
    assert three.even_share == pytest.approx(1 / 3)


def test_an_impossible_place_is_refused() -> None:
    assert placement_distribution([]) == []
    with pytest.raises(ValueError):
        placement_distribution([(4, 3)])


def test_head_to_head_against_the_most_met_opponents() -> None:
    rows = head_to_head(1, GAMES, top=10)
    # vs 2: places (1 vs 2), (2 vs 1), (2 vs 1): differences +1, −1, −1.
    # vs 3: (1 vs 3), (2 vs 3), (3 vs 1): differences +2, +1, −2.
    # vs 4: (3 vs 4): +1. The deleted bot's seat is no opponent.
    assert rows == [
        HeadToHead(2, 3, 1, pytest.approx(-1 / 3)),  # type: ignore[arg-type]
        HeadToHead(3, 3, 2, pytest.approx(1 / 3)),  # type: ignore[arg-type]
        HeadToHead(4, 1, 1, 1.0),
    ]
    assert rows[1].above_share == pytest.approx(2 / 3)
    assert [r.opponent_id for r in head_to_head(1, GAMES, top=2)] == [2, 3]
    assert head_to_head(9, GAMES, top=5) == []


def test_games_are_read_as_bot_ids_through_the_participants() -> None:
    seats = [(10, 0, 5), (10, 1, 6), (10, 2, None), (11, 0, 6), (11, 1, 5)]
    games = [(10, [2, 0, 1]), (10, [1, 0, 2]), (11, [1, 0])]
    assert games_as_bots(seats, games) == [[None, 5, 6], [6, 5, None], [5, 6]]


# --- SVG geometry ---------------------------------------------------------------------


def test_nice_ticks_are_round_and_cover_the_range() -> None:
    assert nice_ticks(1490, 1510) == [1490, 1495, 1500, 1505, 1510]
    assert nice_ticks(1432, 1618) == [1400, 1450, 1500, 1550, 1600, 1650]
    assert nice_ticks(1500, 1500) == [1490, 1495, 1500, 1505, 1510]  # a flat line


def test_the_elo_chart_spans_its_plot_area() -> None:
    rows = [(T0, 1500.0, 1510.0, 7), (T0, 1510.0, 1505.0, 7), (T0, 1505.0, 1490.0, 8)]
    chart = elo_chart(elo_history(rating_points(rows)))
    assert chart is not None
    xy = [tuple(map(float, pair.split(","))) for pair in chart.path.split()]
    assert [x for x, _ in xy] == [chart.left, 242.7, 433.3, chart.right]  # 52 + 572·i/3
    # 1490 and 1510 are the axis ends (y 224 and 14), 1500 its middle, 1505 three quarters up.
    assert [y for _, y in xy] == [119.0, chart.top, 66.5, chart.bottom]
    assert (chart.highest.y, chart.lowest.y) == (chart.top, chart.bottom)
    assert [t.label for t in chart.x_ticks] == ["0", "1", "2", "3"]
    assert [t.label for t in chart.y_ticks] == ["1490", "1495", "1500", "1505", "1510"]
    assert chart.markers[1].label == "game 1: 1510 (2025-01-01)"


def test_placement_bars_are_proportional_to_shares() -> None:
    chart = placement_chart(Placements(4, (6, 2, 2, 0)))
    heights = [bar.height for bar in chart.bars]
    assert [bar.label for bar in chart.bars] == ["60%", "20%", "20%", "0%"]
    assert heights[0] == pytest.approx(3 * heights[1], abs=0.2) and heights[3] == 0
    # The axis tops out at 60% (a round value at or above the highest share): full height.
    assert chart.y_ticks[-1].label == "60%" and chart.bars[0].y == chart.top
    assert chart.bottom > chart.even_y > chart.top  # 25% is drawn inside the plot
    xs = [bar.x for bar in chart.bars]
    assert xs == sorted(xs) and xs[0] > chart.left and xs[-1] + chart.bars[-1].width < chart.right
