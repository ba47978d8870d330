"""The simplest reference bots: baselines for strength tables and tests."""

from __future__ import annotations

import random

from ..bot import Bot
from ..view import GameStart, View


class RandomBot(Bot):
    """Plays a uniformly random legal card, reproducibly from the game's bot seed."""

    def __init__(self) -> None:
        self._rng = random.Random(0)

    def start_game(self, game: GameStart) -> None:
        self._rng = random.Random(game.bot_seed)

    def play(self, view: View) -> int:
        legal = view.legal
        return legal[int(self._rng.random() * len(legal))]


class LowestBot(Bot):
    """Always plays its lowest legal card."""

    def play(self, view: View) -> int:
        return view.legal[0]


class HighestBot(Bot):
    """Always plays its highest legal card."""

    def play(self, view: View) -> int:
        return view.legal[-1]
