"""The deal half of the replay checker (:mod:`cucumbers.validator`): every round's hands
compared with the ones the replay's seed deals (``rules.md``, the engine's decisions (f)).

The draw is the engine's own, :class:`cucumbers.deal.Deals`, since a seed's hands can only
be re-derived by the very draw that dealt them; everything the draw is given (the deck, the
penalty cards out of it, the hand size, the active seats) is the checker's own reckoning
from the rounds before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum

from cucumbers.deal import Deals


class DealCheck(StrEnum):
    """What :func:`~cucumbers.validator.verify_replay` could tell of a replay's deals.

    Members:
        VERIFIED: every round's hands are the ones the replay's seed deals.
        MISDEALT: some hand is not; the problems say which round and seat, and how.
        NO_SEED: the replay has no ``seed``, so its deal could not be verified: only the
            rules were checked (a replay from a producer that does not deal with the SDK).
        UNCHECKED: the replay is too broken (not an object, keys or types wrong, rounds
            past the game's end) for every round's deal to be re-derived.
    """

    VERIFIED = "verified"
    MISDEALT = "misdealt"
    NO_SEED = "no_seed"
    UNCHECKED = "unchecked"


class Redealer:
    """Deals a replay's rounds again from its seed, in order, and reports every recorded
    hand that differs; :attr:`outcome` says what became of the deal at the end."""

    def __init__(self, seed: int | None, low: int, high: int, out: list[str]) -> None:
        self.seed, self.out = seed, out
        self.deals = Deals(seed) if seed is not None else None  # None: no seed, or astray
        self.deck = [rank for rank in range(low, high + 1) for _ in range(4)]
        self.rounds = 0  # rounds whose hands were compared with the seed's
        self.misdealt = False

    def round(
        self,
        where: str,
        hands: Sequence[Sequence[int] | None],
        size: int,
        active: Sequence[int],
        front: Sequence[Sequence[int]],
    ) -> None:
        """Compare the round's recorded ``hands`` with the seed's deal of ``size`` cards to
        each ``active`` seat from the deck less the ``front`` penalty cards. The draw depends
        on those alone, never on the cards a replay records, so one forged round is
        reported alone."""
        if self.deals is None:
            return
        out_of_deck = [card for cards in front for card in cards]
        try:
            dealt = self.deals.deal(self.deck, size, len(active), out_of_deck)
        except ValueError as error:  # penalty cards the deck cannot hold (already reported)
            self.out.append(f"{where}: the seed's deal cannot be re-derived: {error}")
            self.deals, self.misdealt = None, True
            return
        self.rounds += 1
        for seat, hand in zip(active, dealt, strict=True):
            got = hands[seat]
            if got is not None and sorted(got) != hand:  # a missing hand is reported
                self.misdealt = True
                self.out.append(
                    f"{where}: seat {seat}'s hand is {sorted(got)}, but the seed deals it"
                    f" {hand}: the replay has {_difference(got, hand)}"
                )

    def outcome(self, rounds: int) -> DealCheck:
        """What became of the deal of a replay of ``rounds`` rounds, once they are walked."""
        if self.seed is None:
            return DealCheck.NO_SEED
        if self.misdealt:
            return DealCheck.MISDEALT
        return DealCheck.VERIFIED if self.rounds == rounds else DealCheck.UNCHECKED


def _difference(got: Sequence[int], dealt: Sequence[int]) -> str:
    """How a recorded hand differs from the dealt one, in a few words."""
    extra = sorted((Counter(got) - Counter(dealt)).elements())
    missing = sorted((Counter(dealt) - Counter(got)).elements())
    if extra and missing:
        return f"{_cards(extra)} instead of {_cards(missing)}"
    return f"{_cards(extra)} too many" if extra else f"{_cards(missing)} too few"


def _cards(cards: Sequence[int]) -> str:
    return ", ".join(map(str, cards))
