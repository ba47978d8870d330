"""A starter bot for Cucumber Arena (Five Cucumbers and Concombre).

Goal of both games: do NOT win the last trick of a round. Each trick, you must play either a
card at least as high as the highest card played so far, or your lowest card. The SDK gives
you only legal choices in ``view.legal`` (sorted, lowest first); return one of them, as an int.

Try it:
    cucumbers play THIS_FILE builtin:random builtin:heuristic --games 50
    cucumbers validate THIS_FILE
Upload it when you are happy with it.

Useful fields of ``view`` (see ``help(cucumbers.View)`` for all of them):
    view.hand            your cards, sorted
    view.legal           the cards you may play now, sorted
    view.trick           plays of the current trick so far: (seat, card) pairs
    view.high            highest card of the current trick, or None when you lead
    view.trick_number    1 .. view.tricks_per_round
    view.tricks          the completed tricks of this round
    view.scores          everybody's score (cucumbers, or points in Concombre)
    view.move_seconds    your time per move (and view.bank_seconds for overruns)

Anything you print is captured (the tail is shown to you), never sent to the game.
"""

from __future__ import annotations

from cucumbers import Bot, GameResult, GameStart, RoundResult, View


class MyBot(Bot):
    """Ducks when it can, dumps high cards while it is safe, keeps low cards for the end."""

    def __init__(self) -> None:
        # The same object plays every game of a match: remember things about opponents here.
        self.games_played = 0

    def start_game(self, game: GameStart) -> None:
        """Called before each game: your seat, the players, the time limits."""
        self.seat = game.seat

    def play(self, view: View) -> int:
        legal = view.legal
        if view.is_last_trick:
            # The last trick decides the round: play as low as possible.
            return legal[0]
        if view.high is None:
            # Leading an early trick: get rid of a middle card.
            return legal[len(legal) // 2]
        ducks = [card for card in legal if card < view.high]
        if ducks:
            # Stay under the high card, with the highest card that still does.
            return ducks[-1]
        # Every legal card wins the trick for now; winning an early trick costs nothing,
        # so throw the highest card away.
        return legal[-1]

    def end_round(self, result: RoundResult) -> None:
        """Called after each round with every play of the round and the new scores."""

    def end_game(self, result: GameResult) -> None:
        """Called after each game with the placement (result.place is yours, 1 = best)."""
        self.games_played += 1
