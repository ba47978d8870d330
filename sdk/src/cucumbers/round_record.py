"""What the engine records of a round for its replay (``docs/replay-format.md``), and that
record as the replay's JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .view import Trick


@dataclass(slots=True)
class RoundRecord:
    """One round as it was played: the deal, the tricks (with the positions of the plays
    the engine made for a seat that faulted) and how it was scored."""

    number: int
    dealer: int | None
    leader: int
    hand_size: int
    hands: list[list[int] | None]
    tricks: list[Trick] = field(default_factory=list)
    auto: dict[int, list[int]] = field(default_factory=dict)  # trick index -> positions
    loser: int = -1
    card: int = 0
    penalty: int = 0
    doubled: bool = False
    scores: list[int] = field(default_factory=list)
    eliminated: list[int] = field(default_factory=list)
    disqualified: list[int] = field(default_factory=list)
    half: list[int] = field(default_factory=list)


def round_json(r: RoundRecord) -> dict[str, Any]:
    tricks = []
    for index, trick in enumerate(r.tricks):
        auto = r.auto.get(index, ())
        plays = [
            {"seat": s, "card": c, "auto": True} if i in auto else {"seat": s, "card": c}
            for i, (s, c) in enumerate(trick.plays)
        ]
        tricks.append({"leader": trick.leader, "plays": plays, "winner": trick.winner})
    return {
        "number": r.number,
        "dealer": r.dealer,
        "leader": r.leader,
        "hand_size": r.hand_size,
        "hands": r.hands,
        "tricks": tricks,
        "loser": r.loser,
        "card": r.card,
        "penalty": r.penalty,
        "doubled": r.doubled,
        "scores": r.scores,
        "eliminated": r.eliminated,
        "half": r.half,
    }
