"""The bot API: subclass :class:`Bot`, or write a top-level ``play(view)`` function.

A bot object lives for a whole series of games (a match), so it may learn about its
opponents between games. The hooks are optional.

Example::

    from cucumbers import Bot, View

    class Coverer(Bot):
        def play(self, view: View) -> int:
            # Lead below the top; follow with the smallest card that matches the trick,
            # so that the high cards stay as cover for the low ones.
            if view.high is None:
                return view.hand[-2] if len(view.hand) > 3 else view.hand[-1]
            matching = [c for c in view.legal if c >= view.high]
            return matching[0] if matching else view.legal[0]
"""

from __future__ import annotations

from collections.abc import Callable

from .view import GameResult, GameStart, RoundResult, View


class Bot:
    """Base class of bots. Override :meth:`play`; the hooks do nothing by default.

    The bot host creates the bot with no arguments, once per series of games.
    """

    def start_game(self, game: GameStart) -> None:
        """Called before each game, with your seat and the table."""

    def play(self, view: View) -> int:
        """Return one card of ``view.legal`` (exactly an ``int``)."""
        raise NotImplementedError("a bot must define play(self, view) -> int")

    def end_round(self, result: RoundResult) -> None:
        """Called after each round with the round's public record."""

    def end_game(self, result: GameResult) -> None:
        """Called after each game with the final placement."""


class FunctionBot(Bot):
    """Adapts a plain ``play(view) -> int`` function (and optional module-level hooks
    ``start_game``, ``end_round``, ``end_game``) to the :class:`Bot` interface."""

    def __init__(
        self,
        play: Callable[[View], object],
        start_game: Callable[[GameStart], object] | None = None,
        end_round: Callable[[RoundResult], object] | None = None,
        end_game: Callable[[GameResult], object] | None = None,
    ) -> None:
        self._play = play
        self._start_game = start_game
        self._end_round = end_round
        self._end_game = end_game

    def start_game(self, game: GameStart) -> None:
        if self._start_game is not None:
            self._start_game(game)

    def play(self, view: View) -> int:
        return self._play(view)  # type: ignore[return-value]  # checked by the engine

    def end_round(self, result: RoundResult) -> None:
        if self._end_round is not None:
            self._end_round(result)

    def end_game(self, result: GameResult) -> None:
        if self._end_game is not None:
            self._end_game(result)
