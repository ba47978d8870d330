"""An independent checker for replays: re-derives every rule of ``rules.md`` from the
recorded deals and plays, and every round's hands from the replay's seed, and reports where
a replay departs from them.

It shares no game logic with the engine; even the numbers of the rules (decks, penalty
table, thresholds) are restated here from ``rules.md``, so that one slip cannot hide in both
the engine and its checker. It shares one thing: the deal's draw,
:class:`cucumbers.deal.Deals`, since a seed's hands can only be re-derived by the very draw
that dealt them (:mod:`cucumbers.replay_deal`). A replay without a seed (from a producer
that does not deal with the SDK) is checked against the rules alone, and
:func:`verify_replay` says that its deal was not verified.

>>> check_replay(replay)                        # doctest: +SKIP
['round 2 trick 3: seat 1 played 4, illegal: below the high card 9 and not its lowest 2']
>>> verify_replay(replay).deal                  # doctest: +SKIP
<DealCheck.VERIFIED: 'verified'>

Where a recorded value is wrong, the walk goes on from the *recorded* value where that keeps
one mistake from being reported again in every later round or trick (scores, the next trick's
leader, the dealer). That loses nothing: each recorded step is still checked against the
recorded step before it, so a replay passes only if every step follows the rules.

The keys, types and ranges are checked first, by :mod:`cucumbers.replay_shape`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cucumbers.replay import REPLAY_FORMAT
from cucumbers.replay_deal import DealCheck, Redealer
from cucumbers.replay_shape import Game, as_json, check_shape, show

__all__ = [
    "DealCheck",
    "ReplayCheck",
    "ReplayInvalid",
    "assert_valid",
    "check_replay",
    "concombre_hand_size",
    "verify_replay",
]

_CAP = 1000  # rules.md, Placement: the safety cap on rounds
_FC_CUCUMBERS = (0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4, 4, 4, 5)  # by penalty card (index)


class ReplayInvalid(ValueError):
    """A replay breaks the format or the rules; :attr:`problems` lists every problem."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("invalid replay:\n- " + "\n- ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class ReplayCheck:
    """What :func:`verify_replay` found.

    Attributes:
        problems: every way the replay departs from the format, the rules and its seed's
            deal, as :func:`check_replay` lists them; empty when it is valid.
        deal: whether its hands were verified against its seed (:class:`DealCheck`). A
            valid replay is either ``VERIFIED`` or ``NO_SEED``: one that must have been
            dealt by the SDK (an arena host's) needs :attr:`deal_verified` as well.
    """

    problems: tuple[str, ...]
    deal: DealCheck

    @property
    def valid(self) -> bool:
        """No problem was found (which, without a seed, says nothing of the deal)."""
        return not self.problems

    @property
    def deal_verified(self) -> bool:
        """Every round's hands are what the replay's seed deals."""
        return self.deal is DealCheck.VERIFIED


def assert_valid(replay: Mapping[str, Any]) -> None:
    """Raise :class:`ReplayInvalid` listing every problem :func:`check_replay` finds."""
    problems = check_replay(replay)
    if problems:
        raise ReplayInvalid(problems)


def concombre_hand_size(previous_card: int, active_seats: int, available: int) -> int:
    """Cards dealt to each seat in a Concombre round after the first: the rank of the
    previous penalty card; 7 if that many do not fit in the ``available`` cards (52 minus
    the penalty cards lying in front of players); else ``available // active_seats``.

    >>> concombre_hand_size(12, 4, 51), concombre_hand_size(14, 4, 51)
    (12, 7)
    """
    for size in (previous_card, 7):
        if size * active_seats <= available:
            return size
    return available // active_seats


def check_replay(replay: Mapping[str, Any]) -> list[str]:
    """Every way ``replay`` departs from ``replay-format.md`` and ``rules.md``, as
    human-readable lines located by round and trick; an empty list means it is valid.

    The shape (keys, types, ranges) is checked first, and the rules only when the shape is
    sound, since they cannot be re-derived from malformed data. ``bool`` is never accepted
    where an integer is due. When the replay has a seed, every round's hands must be the
    ones it deals; a replay without one is checked against the rules alone (use
    :func:`verify_replay` to know which). Never raises, whatever JSON-like value it is
    given.
    """
    return list(verify_replay(replay).problems)


def verify_replay(replay: Mapping[str, Any]) -> ReplayCheck:
    """:func:`check_replay`'s problems, and whether the deal was verified against the seed.

    >>> result = verify_replay(replay)             # doctest: +SKIP
    >>> result.valid and result.deal_verified      # doctest: +SKIP
    True

    Never raises, whatever JSON-like value it is given.
    """
    if not isinstance(replay, Mapping):
        return ReplayCheck((f"a replay is a JSON object, got {show(replay)}",), DealCheck.UNCHECKED)
    problems: list[str] = []
    if replay.get("format") != REPLAY_FORMAT:
        problems.append(
            f"format is {show(replay.get('format'))}, expected {as_json(REPLAY_FORMAT)}"
        )
    shape: list[str] = []
    game = check_shape(replay, shape)
    deal = DealCheck.NO_SEED if "seed" not in replay else DealCheck.UNCHECKED
    if game is not None and not shape:
        checker = _Checker(replay, game, problems)
        checker.run()
        deal = checker.redealer.outcome(len(checker.rounds))
    return ReplayCheck(tuple(problems + shape), deal)


# -- rules ---------------------------------------------------------------------------------


class _Checker:
    """Walks the rounds in order, carrying the state the rules depend on."""

    def __init__(self, replay: Mapping[str, Any], game: Game, out: list[str]) -> None:
        self.game, self.out, self.n = game, out, len(replay["players"])
        self.replay = replay
        self.rounds: list[dict[str, Any]] = replay["rounds"]
        self.active = list(range(self.n))
        self.scores = [0] * self.n
        self.front: list[list[int]] = [[] for _ in range(self.n)]  # Concombre penalty cards
        self.halved = [False] * self.n
        self.eliminated: list[int] = []  # in order of elimination
        self.disqualified: list[int] = []  # in order of disqualification
        self.fault_at: dict[int, tuple[int, int]] = {}  # seat -> (round, trick)
        self.fault_order: list[int] = []  # faulted seats in the order of ``faults``
        self.dealer = self.loser = self.card = 0  # of the previous round
        self.redealer = Redealer(replay.get("seed"), game.low, game.high, out)

    def expect(self, where: str, what: str, got: object, want: object, why: str = "") -> None:
        if got != want:
            self.out.append(f"{where}: {what} is {as_json(got)}, expected {as_json(want)}{why}")

    def run(self) -> None:
        self.check_faults()
        played = 0
        for number, rnd in enumerate(self.rounds, 1):
            if len(self.active) <= 1 or played == _CAP:
                why = f"{len(self.active)} active seat left" if played < _CAP else "round cap"
                self.out.append(f"round {number}: the game was over after round {played} ({why})")
                break
            self.round(number, rnd)
            played += 1
        active = self.active
        capped = played == _CAP and len(active) > 1
        if len(active) > 1 and not capped:
            self.out.append(
                f"the game stops after round {played} with seats {active} active;"
                " it must go on until at most one is left"
            )
        self.expect("game", "capped", self.replay["capped"], capped)
        ranked = sorted(active, key=lambda s: (self.scores[s], s))  # one seat unless capped
        expected = ranked + self.eliminated[::-1] + self.disqualified[::-1]
        why = (
            f" (active {ranked}, then eliminated {self.eliminated[::-1]}, then"
            f" disqualified {self.disqualified[::-1]}, latest first)"
        )
        self.expect("game", "placement", self.replay["placement"], expected, why)

    def check_faults(self) -> None:
        first: dict[int, int] = {}
        last_key = (0, 0, 0)
        for i, fault in enumerate(self.replay["faults"]):
            where, seat, number, t = f"faults[{i}]", fault["seat"], fault["round"], fault["trick"]
            if seat in first:
                self.out.append(f"{where}: seat {seat} already faulted in faults[{first[seat]}]")
                continue
            first[seat] = i
            if not 1 <= number <= len(self.rounds):
                self.out.append(f"{where}: round {number} does not exist")
                continue
            tricks = self.rounds[number - 1]["tricks"]
            if not 1 <= t <= len(tricks):
                self.out.append(f"{where}: round {number} has no trick {t}")
                continue
            self.fault_at[seat] = (number, t)
            self.fault_order.append(seat)
            seats = [p["seat"] for p in tricks[t - 1]["plays"]]
            key = (number, t, seats.index(seat) if seat in seats else len(seats))
            if key < last_key:
                self.out.append(
                    f"{where}: seat {seat}'s fault (round {number} trick {t}) is"
                    " listed after a later one; faults must be in order"
                )
            last_key = max(key, last_key)

    def next_active(self, seat: int) -> int:
        """The first active seat clockwise after ``seat`` (which may itself be out)."""
        return next(
            (seat + k) % self.n for k in range(1, self.n + 1) if (seat + k) % self.n in self.active
        )

    def round(self, number: int, rnd: dict[str, Any]) -> None:
        where, game, active = f"round {number}", self.game, self.active
        self.expect(where, "number", rnd["number"], number)
        for seat, (r, _) in self.fault_at.items():
            if r == number and seat not in active:
                self.out.append(f"{where}: seat {seat} faulted in this round but is not in play")
        # Dealer, leader and hand size follow from the state the previous round left.
        dealer: int | None = None
        if game.concombre:
            dealer = self.n - 1 if number == 1 else self.next_active(self.dealer)
            leader, why = self.next_active(dealer), "the next active seat after the dealer"
            available = 4 * (game.high - game.low + 1) - sum(map(len, self.front))
            size = 7 if number == 1 else concombre_hand_size(self.card, len(active), available)
            self.dealer = rnd["dealer"] if rnd["dealer"] is not None else dealer
        elif number == 1:
            leader, why, size = 0, "seat 0 leads round 1", 7
        elif self.loser in active:
            leader, why, size = self.loser, "the previous loser", 7
        else:
            leader, why, size = self.next_active(self.loser), "next active after the loser", 7
        self.expect(where, "dealer", rnd["dealer"], dealer)
        self.expect(where, "leader", rnd["leader"], leader, f" ({why})")
        self.expect(where, "hand_size", rnd["hand_size"], size)
        hands = self.deal(where, rnd["hands"], size)
        self.redealer.round(where, rnd["hands"], size, self.active, self.front)
        result = self.tricks(number, rnd, hands, size)
        self.score(where, number, rnd, *result)

    def deal(self, where: str, hands: list[list[int] | None], size: int) -> dict[int, list[int]]:
        """Check the dealt hands; return each active seat's hand, sorted."""
        held: dict[int, list[int]] = {}
        dealt: Counter[int] = Counter()
        for seat, hand in enumerate(hands):
            if seat not in self.active:
                if hand is not None:
                    self.out.append(f"{where}: seat {seat} is out of the game but has a hand")
            elif hand is None:
                self.out.append(f"{where}: seat {seat} is in play but has no hand (null)")
            else:
                self.expect(where, f"seat {seat}'s hand size", len(hand), size)
                held[seat] = sorted(hand)
                dealt.update(hand)
        deck = Counter({rank: 4 for rank in range(self.game.low, self.game.high + 1)})
        for cards in self.front:
            deck.subtract(cards)
        for card in sorted(dealt):
            if dealt[card] > deck[card]:
                aside = " (the others lie in front of players)" if deck[card] < 4 else ""
                self.out.append(
                    f"{where}: the hands hold {dealt[card]} cards of rank {card},"
                    f" the deck only {deck[card]}{aside}"
                )
        return held

    def tricks(
        self, number: int, rnd: dict[str, Any], hands: dict[int, list[int]], size: int
    ) -> tuple[int, int, list[int]]:
        """Check every trick; return the winner, high card and cards of the last trick."""
        tricks = rnd["tricks"]
        self.expect(f"round {number}", "the number of tricks", len(tricks), size)
        auto_from = {s: t for s, (r, t) in self.fault_at.items() if r == number}
        lead: int = rnd["leader"]
        result: tuple[int, int, list[int]] = (-1, 0, [])  # -1: no trick at all
        for t, trick in enumerate(tricks[:size], 1):
            where = f"round {number} trick {t}"
            why = " (the round's leader)" if t == 1 else " (the last trick's winner)"
            self.expect(where, "leader", trick["leader"], lead, why)
            # Seats play clockwise from the leader, skipping seats no longer in the game.
            start = trick["leader"]
            start = start if start in self.active else self.next_active(start)
            i = self.active.index(start)
            order = self.active[i:] + self.active[:i]
            plays = trick["plays"]
            seats = [p["seat"] for p in plays]
            self.expect(where, "the order of play", seats, order, " (clockwise from the leader)")
            high, best, cards = 0, -1, []
            for play in plays:
                seat, card = play["seat"], play["card"]
                hand = hands.get(seat)
                if hand is not None:
                    auto = t >= auto_from.get(seat, size + 1)
                    marked = play.get("auto", False)
                    if auto or marked or card not in hand or (card < high and card != hand[0]):
                        self.play(where, seat, card, high, hand, auto, marked)
                    else:  # the common case: an ordinary legal play
                        hand.remove(card)
                if card >= high:  # ties go to the card played last
                    high, best = card, seat
                cards.append(card)
            why = f" (highest card {high}, ties to the last played)"
            self.expect(where, "winner", trick["winner"], best, why)
            # The next leader is checked against the recorded winner, so that a wrong winner
            # is reported once rather than again as a wrong leader.
            lead, result = trick["winner"], (best, high, cards)
        return result

    def play(
        self, where: str, seat: int, card: int, high: int, hand: list[int], auto: bool, marked: bool
    ) -> None:
        """Check one play against the seat's remaining ``hand``; take the card from it."""
        lowest = hand[0] if hand else None
        if auto and not marked:
            self.out.append(f"{where}: seat {seat} has faulted, so its play must be marked auto")
        if marked and not auto:
            self.out.append(f"{where}: seat {seat}'s play is marked auto but it has not faulted")
        if auto and card != lowest:
            self.out.append(
                f"{where}: seat {seat}'s auto play must be its lowest card {lowest}, got {card}"
            )
        if card not in hand:
            self.out.append(f"{where}: seat {seat} played {card}, which is not in its hand {hand}")
            return
        if card < high and card != lowest:
            self.out.append(
                f"{where}: seat {seat} played {card}, illegal: below the high card"
                f" {high} and not its lowest {lowest}"
            )
        hand.remove(card)

    def score(
        self, where: str, number: int, rnd: dict[str, Any], loser: int, card: int, last: list[int]
    ) -> None:
        concombre = self.game.concombre
        # Disqualified at the end of the round, in the order of ``faults``: docs/rules.md,
        # "the engine's decisions" (a).
        out = [s for s in self.fault_order if self.fault_at[s][0] == number and s in self.active]
        scores = list(self.scores)
        eliminated, half = [], []
        if loser >= 0:  # -1 when the round has no tricks (already reported)
            self.expect(where, "loser", rnd["loser"], loser, " (the last trick's winner)")
            self.expect(where, "card", rnd["card"], card, " (the last trick's winning card)")
            doubled = not concombre and 1 in last
            penalty = card if concombre else _FC_CUCUMBERS[card] * (2 if doubled else 1)
            why = " (doubled: a 1 was played in the last trick)" if doubled else ""
            self.expect(where, "penalty", rnd["penalty"], penalty, why)
            self.expect(where, "doubled", rnd["doubled"], doubled)
            scores[loser] += penalty
            if concombre:
                self.front[loser].append(card)
                if scores[loser] >= 21 and not self.halved[loser]:
                    self.halved[loser], half = True, [loser]
                    scores[loser] = max(self.front[loser])
                    self.front[loser] = [scores[loser]]
                elif scores[loser] >= 21 and loser not in out:
                    eliminated = [loser]
            elif scores[loser] > 5 and loser not in out:
                eliminated = [loser]
        for seat in range(self.n):
            self.expect(where, f"seat {seat}'s score", rnd["scores"][seat], scores[seat])
        why = " (disqualification takes precedence)" if loser in out else ""
        self.expect(where, "eliminated", rnd["eliminated"], eliminated, why)
        self.expect(where, "half", rnd["half"], half)
        for seat in eliminated + out:  # their penalty cards go back to the deck
            self.front[seat] = []
        self.eliminated += eliminated
        self.disqualified += out
        self.active = [s for s in self.active if s not in eliminated and s not in out]
        self.scores = list(rnd["scores"])  # go on from the recorded scores (module docstring)
        self.loser, self.card = loser, card
