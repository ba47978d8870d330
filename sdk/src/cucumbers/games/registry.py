"""The games by name: what the engine, the CLI, the renderers and the platform look up.

>>> rules_for("concombre").max_players
7
>>> game_choices()
[('five-cucumbers', 'Five Cucumbers'), ('concombre', 'Concombre')]
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .base import GameRules, UnknownGameError

_GAMES: dict[str, GameRules] = {}


def register(rules: GameRules) -> GameRules:
    """Add a game to the registry, under ``rules.name``, and return it. Registering the same
    object again is a no-op; another game under a taken name raises :class:`ValueError`."""
    taken = _GAMES.get(rules.name)
    if taken is not None and taken is not rules:
        raise ValueError(f"a game named {rules.name!r} is already registered: {taken!r}")
    _GAMES[rules.name] = rules
    return rules


def unregister(name: str) -> None:
    """Remove a game from the registry (a test that registered one cleans up with this)."""
    _GAMES.pop(name, None)


def registry() -> Mapping[str, GameRules]:
    """Every registered game by name, in registration order (a read-only live view)."""
    return MappingProxyType(_GAMES)


def rules_for(name: str) -> GameRules:
    """The rules of the registered game called ``name``; :class:`UnknownGameError` if none."""
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        known = ", ".join(_GAMES)
        raise UnknownGameError(f"unknown game {name!r}; choose one of: {known}") from None


def game_choices() -> list[tuple[str, str]]:
    """``(name, title)`` of every registered game, in order: a form's or a model's choices."""
    return [(name, rules.title) for name, rules in _GAMES.items()]


def title(name: str) -> str:
    """The title of the game ``name``, or ``name`` itself when no such game is registered
    (a renderer may be shown a replay of a game it does not know)."""
    rules = _GAMES.get(name)
    return rules.title if rules is not None else name
