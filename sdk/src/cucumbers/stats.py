"""Per-bot summary of many games: the figures ``cucumbers play`` prints."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .match import GameOutcome


@dataclass(slots=True)
class BotSummary:
    """Running totals for one bot of a match.

    Attributes:
        bot: the bot's display name.
        games: games played.
        wins: games placed first.
        places: every place, 1 = best.
        faults: faults by kind.
        moves: decisions made.
        think_seconds: time those decisions took.
    """

    bot: str
    games: int = 0
    wins: int = 0
    places: list[int] = field(default_factory=list)
    faults: Counter[str] = field(default_factory=Counter)
    moves: int = 0
    think_seconds: float = 0.0

    @property
    def mean_place(self) -> float:
        return sum(self.places) / len(self.places) if self.places else math.nan

    @property
    def place_ci95(self) -> float:
        """Half-width of the 95% confidence interval of :attr:`mean_place` (normal approx.)."""
        n = len(self.places)
        if n < 2:
            return math.nan
        mean = self.mean_place
        variance = sum((p - mean) ** 2 for p in self.places) / (n - 1)
        return 1.96 * math.sqrt(variance / n)

    @property
    def mean_move_ms(self) -> float:
        return 1000 * self.think_seconds / self.moves if self.moves else math.nan

    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "games": self.games,
            "wins": self.wins,
            "mean_place": _finite(self.mean_place),
            "mean_place_ci95": _finite(self.place_ci95),
            "faults": sum(self.faults.values()),
            "faults_by_kind": dict(sorted(self.faults.items())),
            "moves": self.moves,
            "mean_move_ms": _finite(self.mean_move_ms),
        }


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def summarize(names: Sequence[str], outcomes: Iterable[GameOutcome]) -> list[BotSummary]:
    """One :class:`BotSummary` per bot (in ``names`` order) over ``outcomes``."""
    summaries = [BotSummary(name) for name in names]
    for outcome in outcomes:
        for seat, bot in enumerate(outcome.bots):
            summary = summaries[bot]
            place = outcome.placement.index(seat) + 1
            summary.games += 1
            summary.wins += place == 1
            summary.places.append(place)
            summary.moves += outcome.moves[seat]
            summary.think_seconds += outcome.think_seconds[seat]
        for fault in outcome.faults:
            summaries[outcome.bots[fault.seat]].faults[fault.kind.value] += 1
    return summaries


def format_table(summaries: Sequence[BotSummary]) -> str:
    """A plain-text table of the summaries, best mean place first."""
    header = ("bot", "games", "wins", "mean place ± 95% interval", "faults", "ms/move")
    rows = []
    for s in sorted(summaries, key=lambda s: (s.mean_place, s.bot)):
        faults = ", ".join(f"{kind} {n}" for kind, n in sorted(s.faults.items())) or "-"
        ci = "" if math.isnan(s.place_ci95) else f" ± {s.place_ci95:.2f}"
        rows.append(
            (
                s.bot,
                str(s.games),
                str(s.wins),
                f"{s.mean_place:.2f}{ci}",
                faults,
                f"{s.mean_move_ms:.3f}" if s.moves else "-",
            )
        )
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) for row in (header, *rows)
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)
