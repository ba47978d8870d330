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

from typing import TYPE_CHECKING, Any

from .bot import Bot
from .faults import Fault, FaultKind
from .view import GameResult, GameStart, Play, RoundResult, Trick, View

if TYPE_CHECKING:
    from .engine import GameState, IllegalMoveError
    from .games import CONCOMBRE, FIVE_CUCUMBERS, GameName, GameRules, registry, rules_for

# The engine and the game settings load on first use: the bot host (one per bot, started for
# every match) needs only the bot API, and its start-up time is paid per bot per match.
_LAZY = {
    "GameState": "engine",
    "IllegalMoveError": "engine",
    "CONCOMBRE": "games",
    "FIVE_CUCUMBERS": "games",
    "GameName": "games",
    "GameRules": "games",
    "registry": "games",
    "rules_for": "games",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cucumbers' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


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
    "registry",
    "rules_for",
]
