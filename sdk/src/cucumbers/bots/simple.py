"""The simplest reference bots: baselines for strength tables and tests."""

from __future__ import annotations

import random

from ..bot import Bot
from ..view import GameStart, View


class RandomBot(Bot):
    """Plays a uniformly random legal card, reproducibly from the game's bot seed."""

    def __init__(self) -> None:
        # Seeded on first use only: start_game seeds it again before any game anyway.
        self._random = self._unstarted

    def _unstarted(self) -> float:
        self._random = random.Random(0).random
        return self._random()

    def start_game(self, game: GameStart) -> None:
        # The bound method, not the generator: one lookup less on every move.
        self._random = random.Random(game.bot_seed).random

    def play(self, view: View) -> int:
        legal = view.legal
        return legal[int(self._random() * len(legal))]


class LowestBot(Bot):
    """Always plays its lowest legal card."""

    def play(self, view: View) -> int:
        return view.legal[0]


class HighestBot(Bot):
    """Always plays its highest legal card."""

    def play(self, view: View) -> int:
        return view.legal[-1]
