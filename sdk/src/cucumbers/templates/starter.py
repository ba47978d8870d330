"""A starter bot for Cucumber Arena (Five Cucumbers and Concombre).

Goal of both games: do NOT win the last trick of a round. Each trick, you must play either a
card at least as high as the highest card played so far, or your lowest card. The SDK gives
you only legal choices in ``view.legal`` (sorted, lowest first); return one of them, as an int.

The one idea behind this bot: high cards are *cover*. The only way to lose a low card is to
face a trick you cannot match, which forces your lowest card out. So while you can match,
match cheaply and keep your low cards for the last trick. It beats builtin:random at every
table size of both games (docs/bots.md has the numbers) and loses to builtin:heuristic.

It is deterministic: the same views give the same moves, so ``cucumbers repro`` replays a
recorded game exactly with it. Keep it so (seed any randomness from ``game.bot_seed``).

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
    """Keeps its high cards as cover and matches each trick with the cheapest card."""

    def __init__(self) -> None:
        # The same object plays every game of a match: remember things about opponents here.
        self.games_played = 0

    def start_game(self, game: GameStart) -> None:
        """Called before each game: your seat, the players, the time limits."""
        self.seat = game.seat

    def play(self, view: View) -> int:
        hand, legal = view.hand, view.legal
        if len(legal) == 1:
            # Nothing matches the trick (your lowest card must go), or one card is left.
            return legal[0]
        if view.high is None:
            # Leading: early on, lead the second-highest card so the top card stays as
            # cover; with three cards or fewer the top card is only a danger, so lead it.
            return hand[-1] if len(hand) <= 3 else hand[-2]
        if len(hand) == 2:
            # Next-to-last trick: keep the lower card for the last one.
            return hand[-1]
        # Match with the smallest card that does: the bigger ones stay as cover.
        return min(card for card in legal if card >= view.high)

    def end_round(self, result: RoundResult) -> None:
        """Called after each round with every play of the round and the new scores."""

    def end_game(self, result: GameResult) -> None:
        """Called after each game with the placement (result.place is yours, 1 = best)."""
        self.games_played += 1
