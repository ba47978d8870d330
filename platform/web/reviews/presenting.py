"""What a review's page and its API answer show of a done review: a summary over the
match (regret per decision, per game) and the decisions, biggest mistakes first, each with
the viewer's key of its move as its seat saw it (``g2-r3-t4-p2-s1``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cucumbers.games import rules_for

from .models import Review

#: The decisions a page lists, biggest regret first.
SHOWN_DECISIONS = 30


@dataclass(frozen=True, slots=True)
class GameLine:
    number: int
    seat: int
    decisions: int
    forced: int
    faulted: bool
    regret: float

    @property
    def per_decision(self) -> float:
        return self.regret / self.decisions if self.decisions else 0.0


@dataclass(frozen=True, slots=True)
class Mistake:
    game: int
    seat: int
    round: int
    trick: int
    move: int
    hand: str
    played: str
    best: str
    regret: float
    interval: tuple[float, float]

    @property
    def moment(self) -> str:
        """The viewer's key of the decision as the seat saw it: its trick with the cards
        before its own down (``move - 1``), its legal cards marked and the one it chose."""
        return f"g{self.game}-r{self.round}-t{self.trick}-p{self.move - 1}-s{self.seat}"


@dataclass(frozen=True, slots=True)
class Summary:
    unit: str
    deals: int
    games: tuple[GameLine, ...]
    mistakes: tuple[Mistake, ...]
    decisions: int
    regret: float

    @property
    def per_decision(self) -> float:
        return self.regret / self.decisions if self.decisions else 0.0


def summary(review: Review) -> Summary | None:
    """The done review's summary; None before it is done."""
    if not review.result:
        return None
    rules = rules_for(review.match.game)

    def name(card: int) -> str:
        return rules.card_name(card)

    games: list[GameLine] = []
    mistakes: list[Mistake] = []
    for game in review.result["games"]:
        data: dict[str, Any] = game["review"]
        totals = data["summary"]
        games.append(
            GameLine(
                game["number"],
                game["seat"],
                int(totals["decisions"]),
                int(totals["forced"]),
                bool(totals["faulted"]),
                float(totals["regret"]),
            )
        )
        mistakes += [
            Mistake(
                game=game["number"],
                seat=game["seat"],
                round=d["round"],
                trick=d["trick"],
                move=d["move"],
                hand=" ".join(name(card) for card in d.get("hand", [])),
                played=name(d["played"]),
                best=name(d["best"]),
                regret=float(d["regret"]),
                interval=(float(d["interval"][0]), float(d["interval"][1])),
            )
            for d in data["decisions"]
        ]
    mistakes.sort(key=lambda m: (-m.regret, m.game, m.round, m.trick))
    return Summary(
        unit=rules.unit,
        deals=review.deals,
        games=tuple(games),
        mistakes=tuple(mistakes[:SHOWN_DECISIONS]),
        decisions=sum(g.decisions for g in games),
        regret=sum(g.regret for g in games),
    )
