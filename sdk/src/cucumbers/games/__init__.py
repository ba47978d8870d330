"""The games: static descriptions (who may play, the deck, the scoring rules), one module per
game, and the registry that names them.

The mutable state of a game lives in :mod:`cucumbers.engine`, which asks the game's
:class:`GameRules` for everything that differs between games. To add a game, write one
module with a :class:`GameRules` subclass and call :func:`register` with an instance of it
(``docs/writing-bots.md``, "Adding a game")::

    class LongFiveCucumbers(FiveCucumbersRules):
        name = "five-cucumbers-long"
        title = "Five Cucumbers (out above 7)"
        elimination_above = 7

    register(LongFiveCucumbers())
"""

from __future__ import annotations

from enum import StrEnum

from .base import (
    ROUND_CAP,
    GameRules,
    RoundPenalty,
    RoundStart,
    Settlement,
    UnknownGameError,
    next_active,
)
from .concombre import CONCOMBRE, ConcombreRules
from .five_cucumbers import FIVE_CUCUMBERS, FiveCucumbersRules
from .registry import game_choices, register, registry, rules_for, title, unregister

register(FIVE_CUCUMBERS)
register(CONCOMBRE)


class GameName(StrEnum):
    """The names of the built-in games. Code that should work for every registered game
    (a variant a test registers included) looks them up in :func:`registry` instead."""

    FIVE_CUCUMBERS = FIVE_CUCUMBERS.name
    CONCOMBRE = CONCOMBRE.name


__all__ = [
    "CONCOMBRE",
    "FIVE_CUCUMBERS",
    "ROUND_CAP",
    "ConcombreRules",
    "FiveCucumbersRules",
    "GameName",
    "GameRules",
    "RoundPenalty",
    "RoundStart",
    "Settlement",
    "UnknownGameError",
    "game_choices",
    "next_active",
    "register",
    "registry",
    "rules_for",
    "title",
    "unregister",
]
