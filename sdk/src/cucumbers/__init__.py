"""Cucumbers: the engine, bot SDK and local runner of Cucumber Arena.

A bot is a Python file that either defines a subclass of :class:`Bot` or a top-level
function ``play(view) -> int``::

    from cucumbers import Bot, View

    class Lowball(Bot):
        def play(self, view: View) -> int:
            return view.legal[0]          # always the lowest legal card
"""

from __future__ import annotations

__version__ = "0.1.0"

from .bot import Bot
from .engine import GameState, IllegalMoveError
from .faults import Fault, FaultKind
from .games import CONCOMBRE, FIVE_CUCUMBERS, GameName, GameRules, rules_for
from .view import GameResult, GameStart, Play, RoundResult, Trick, View

__all__ = [
    "CONCOMBRE",
    "FIVE_CUCUMBERS",
    "Bot",
    "Fault",
    "FaultKind",
    "GameName",
    "GameResult",
    "GameRules",
    "GameStart",
    "GameState",
    "IllegalMoveError",
    "Play",
    "RoundResult",
    "Trick",
    "View",
    "__version__",
    "rules_for",
]
