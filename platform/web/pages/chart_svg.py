"""Geometry of the bot page's inline SVG charts, computed here so the template only places
ready numbers (no JavaScript, no chart library, no build step). Pure functions; the
coordinates are in each chart's viewBox units, which the browser scales to the page."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .charts import BotStats, EloHistory, Placements

# The Elo chart's viewBox and the margins that hold its axis labels.
ELO_WIDTH, ELO_HEIGHT = 640, 260
ELO_LEFT, ELO_RIGHT, ELO_TOP, ELO_BOTTOM = 52, 16, 14, 36
# One placement chart (one table size); several sit side by side on a wide screen.
BAR_WIDTH, BAR_HEIGHT = 240, 150
BAR_LEFT, BAR_RIGHT, BAR_TOP, BAR_BOTTOM = 34, 8, 18, 30


@dataclass(frozen=True)
class Tick:
    value: float
    position: float  # along its axis, in viewBox units
    label: str


@dataclass(frozen=True)
class Marker:
    x: float
    y: float
    label: str  # the point's tooltip (an SVG <title>: shown on hover without scripts)


@dataclass(frozen=True)
class LineChart:
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    path: str  # the line's "points" attribute
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    markers: list[Marker]
    lowest: Marker
    highest: Marker


@dataclass(frozen=True)
class Bar:
    place: int
    count: int
    share: float
    x: float
    y: float
    width: float
    height: float
    label: str  # "43%", over the bar


@dataclass(frozen=True)
class BarChart:
    placements: Placements
    width: int
    height: int
    left: float
    right: float
    top: float
    bottom: float
    bars: list[Bar]
    y_ticks: list[Tick]
    even_y: float  # the dashed line where every bar would be if places were random


def nice_step(span: float, count: int) -> float:
    """A round step (1, 2 or 5 × 10^k) giving about ``count`` intervals over ``span``."""
    raw = span / max(count, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values from at or below ``low`` to at or above ``high``."""
    if high <= low:  # a flat line still gets an axis around it
        low, high = low - 10, high + 10
    step = nice_step(high - low, count)
    start = math.floor(low / step) * step
    stop = math.ceil(high / step) * step
    return [start + i * step for i in range(round((stop - start) / step) + 1)]


def _scale(value: float, low: float, high: float, start: float, end: float) -> float:
    if high == low:
        return start
    return start + (value - low) / (high - low) * (end - start)


def _num(value: float) -> str:
    return f"{value:.1f}"


def elo_chart(history: EloHistory) -> LineChart | None:
    """The Elo line over the bot's rated games (x: game number, y: rating after it)."""
    if not history.points or history.lowest is None or history.highest is None:
        return None
    left, right = ELO_LEFT, ELO_WIDTH - ELO_RIGHT
    top, bottom = ELO_TOP, ELO_HEIGHT - ELO_BOTTOM
    values = nice_ticks(history.lowest.rating, history.highest.rating)
    low, high = values[0], values[-1]
    games = max(history.games, 1)

    def at(index: int, rating: float) -> tuple[float, float]:
        return _scale(index, 0, games, left, right), _scale(rating, low, high, bottom, top)

    def marker(index: int, rating: float, label: str) -> Marker:
        x, y = at(index, rating)
        return Marker(round(x, 1), round(y, 1), label)

    path = " ".join(
        f"{_num(x)},{_num(y)}" for x, y in (at(p.index, p.rating) for p in history.points)
    )
    x_step = max(1, round(nice_step(games, 6)))  # whole games only
    x_values = range(0, games + 1, x_step)
    return LineChart(
        ELO_WIDTH,
        ELO_HEIGHT,
        left,
        right,
        top,
        bottom,
        path,
        [Tick(v, round(at(v, low)[0], 1), str(v)) for v in x_values],
        [Tick(v, round(at(0, v)[1], 1), f"{v:g}") for v in values],
        [
            marker(p.index, p.rating, f"game {p.index}: {p.rating:.0f} ({p.at:%Y-%m-%d})")
            for p in history.points
        ],
        marker(history.lowest.index, history.lowest.rating, f"lowest {history.lowest.rating:.0f}"),
        marker(
            history.highest.index, history.highest.rating, f"highest {history.highest.rating:.0f}"
        ),
    )


def placement_chart(placements: Placements) -> BarChart:
    """Bars of the share of games at each place, with the even share as a reference."""
    left, right = BAR_LEFT, BAR_WIDTH - BAR_RIGHT
    top, bottom = BAR_TOP, BAR_HEIGHT - BAR_BOTTOM
    shares = placements.shares
    # The axis stops a little above the tallest bar (or the reference line) so small
    # differences between places stay visible at seven seats.
    ceiling = nice_ticks(0, max(*shares, placements.even_share) * 100, 4)
    high = ceiling[-1] / 100
    slot = (right - left) / placements.size
    bars = []
    for i, (count, share) in enumerate(zip(placements.counts, shares, strict=True)):
        y = _scale(share, 0, high, bottom, top)
        bars.append(
            Bar(
                i + 1,
                count,
                share,
                round(left + slot * i + slot * 0.15, 1),
                round(y, 1),
                round(slot * 0.7, 1),
                round(bottom - y, 1),
                f"{share:.0%}",
            )
        )
    return BarChart(
        placements,
        BAR_WIDTH,
        BAR_HEIGHT,
        left,
        right,
        top,
        bottom,
        bars,
        [Tick(v, round(_scale(v / 100, 0, high, bottom, top), 1), f"{v:g}%") for v in ceiling],
        round(_scale(placements.even_share, 0, high, bottom, top), 1),
    )


@dataclass(frozen=True)
class PageCharts:
    stats: BotStats
    elo: LineChart | None
    placements: list[BarChart]


def page_charts(stats: BotStats) -> PageCharts:
    return PageCharts(stats, elo_chart(stats.elo), [placement_chart(p) for p in stats.placements])
