"""Table tests for every rule of ``rules.md`` (and the engine's documented decisions where
the rules are silent), in both games, by steering a real :class:`GameState`.

Positions are set up with :func:`tests.sdk.enginekit.rig` at the start of a round: it
replaces the dealt hands (and, where a rule needs it, the scores, penalty cards and
half-cucumbers) and the round is then played through the engine's public ``play``/``fault``.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pytest

from cucumbers import engine
from cucumbers.engine import (
    GameOverError,
    GameState,
    IllegalMoveError,
    illegal_move_detail,
)
from cucumbers.faults import FaultKind, clipped
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, ROUND_CAP, GameRules
from cucumbers.legal import legal_cards
from tests.sdk.enginekit import (
    GAME_IDS,
    GAMES,
    TABLE_IDS,
    TABLES,
    expected_deals,
    finish_game,
    finish_round,
    lose_round,
    new_game,
    play,
    players,
    random_game,
    rig,
)

BOTH = pytest.mark.parametrize("rules", GAMES, ids=GAME_IDS)
FC, CC = FIVE_CUCUMBERS, CONCOMBRE


def replay_of(state: GameState) -> dict[str, Any]:
    return state.to_replay(players(state.num_players))


def one_trick_round(
    state: GameState, cards: Sequence[int | None], *, faults: tuple[int, ...] = (), **kwargs: Any
) -> None:
    """Rig a round of one trick (``cards[s]`` is seat s's only card) and play it; seats in
    ``faults`` fault when they are to move."""
    rig(state, [None if c is None else [c] for c in cards], **kwargs)
    number = state.round_number
    while state.to_move is not None and state.round_number == number:
        seat = state.to_move
        if seat in faults:
            state.fault(FaultKind.CRASH, f"seat {seat} crashed")
        else:
            state.play(state.hand(seat)[0])


def doomed(rules: GameRules, state: GameState, seat: int) -> dict[str, Any]:
    """Rig arguments after which ``seat`` is eliminated if it loses a round with a card >= 4:
    5 cucumbers, or a half-cucumber and 17 points (a 10 and a 7 in front of it)."""
    scores = list(state.scores)
    if rules is FC:
        scores[seat] = 5
        return {"scores": scores}
    view = start_view(state)
    piles = [list(p) for p in view.penalty_cards]
    half = list(view.half_cucumbers)
    scores[seat], piles[seat], half[seat] = 17, [10, 7], True
    return {"scores": scores, "penalty_cards": piles, "half": half}


def start_view(state: GameState) -> Any:
    return state.view(state.to_move)  # type: ignore[arg-type]


# -- tables, decks, seeds --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "n", "ok"),
    [(FC, n, 2 <= n <= 6) for n in range(0, 9)] + [(CC, n, 2 <= n <= 7) for n in range(0, 9)],
)
def test_it_accepts_only_the_legal_table_sizes(rules: GameRules, n: int, ok: bool) -> None:
    if ok:
        assert GameState(rules, n, 1).active == tuple(range(n))
    else:
        with pytest.raises(ValueError):
            GameState(rules, n, 1)


@BOTH
@pytest.mark.parametrize("n", [True, 3.0, "3", None])
def test_it_rejects_a_table_size_that_is_not_an_int(rules: GameRules, n: object) -> None:
    with pytest.raises(ValueError):
        GameState(rules, n, 1)  # type: ignore[arg-type]


@BOTH
@pytest.mark.parametrize("seed", [True, 1.0, "1", None])
def test_it_rejects_a_seed_that_is_not_an_int(rules: GameRules, seed: object) -> None:
    with pytest.raises(TypeError):
        GameState(rules, 2, seed)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "size", "ranks"), [(FC, 60, range(1, 16)), (CC, 52, range(2, 15))], ids=GAME_IDS
)
def test_the_deck_holds_four_of_each_rank(rules: GameRules, size: int, ranks: range) -> None:
    assert len(rules.deck) == size
    assert Counter(rules.deck) == {rank: 4 for rank in ranks}


# -- the deal (decision f) ---------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_round_one_deals_consecutive_blocks_of_one_seeded_sample(rules: GameRules, n: int) -> None:
    for seed in (0, 1, 1234, 2**47 + 5):
        state = GameState(rules, n, seed)
        dealt = random.Random(seed).sample(sorted(rules.deck), 7 * n)
        for seat in range(n):
            assert state.hand(seat) == tuple(sorted(dealt[7 * seat : 7 * seat + 7]))


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_every_round_is_dealt_from_the_same_seeded_stream(rules: GameRules, n: int) -> None:
    for seed in range(5):
        replay = replay_of(random_game(rules, n, seed, fault_rate=0.01))
        for (number, hands), rnd in zip(expected_deals(replay), replay["rounds"], strict=True):
            assert rnd["number"] == number
            assert [h if h is None else sorted(h) for h in rnd["hands"]] == hands


# -- shared trick rules ------------------------------------------------------------------------

EXAMPLE_HANDS = [
    [8, 2, 4, 4, 6, 11, 14],
    [10, 2, 3, 5, 6, 7, 12],
    [3, 5, 9, 9, 12, 13, 14],  # the 3 is legal on a 10 although 5 and 9 are not
    [10, 2, 4, 5, 7, 11, 13],
]


@BOTH
def test_the_rule_sheet_example_gives_the_trick_to_the_last_of_two_tens(rules: GameRules) -> None:
    state = new_game(rules, 4, EXAMPLE_HANDS)
    play(state, 8, 10)
    assert state.to_move == 2
    assert state.legal() == (3, 12, 13, 14)
    play(state, 3)
    assert state.legal() == (2, 10, 11, 13)
    play(state, 10)
    view = start_view(state)
    assert view.tricks == ((0, ((0, 8), (1, 10), (2, 3), (3, 10)), 3),)
    assert state.to_move == 3  # the winner leads the next trick
    assert (view.leader, view.trick_number, view.trick) == (3, 2, ())


@BOTH
@pytest.mark.parametrize(
    "hand",
    [[2, 2, 5, 9, 9, 13, 14], [14, 14, 14, 14, 2, 3, 4], [4, 5, 6, 7, 8, 9, 10]],
)
def test_the_leader_may_play_any_card_in_hand(rules: GameRules, hand: list[int]) -> None:
    cards = sorted((Counter({r: 4 for r in range(2, 15)}) - Counter(hand)).elements())
    state = new_game(rules, 2, [hand, cards[:7]])
    assert state.to_move == 0
    assert state.legal() == tuple(sorted(set(hand)))
    for card in sorted(set(hand)):
        other = new_game(rules, 2, [hand, cards[:7]])
        other.play(card)  # any of them is accepted
        assert other.hand(0).count(card) == hand.count(card) - 1


# (follower's 7 cards, the card led, the legal set, a card in hand that must be refused)
LEGAL_TABLE = [
    ([2, 4, 6, 8, 10, 12, 14], 9, (2, 10, 12, 14), 8),
    ([2, 4, 6, 8, 10, 12, 14], 2, (2, 4, 6, 8, 10, 12, 14), None),
    ([3, 3, 5, 5, 9, 9, 9], 9, (3, 9), 5),
    ([3, 3, 5, 5, 9, 9, 9], 10, (3,), 9),
    ([5, 6, 7, 8, 9, 10, 11], 4, (5, 6, 7, 8, 9, 10, 11), None),
    ([5, 6, 7, 8, 9, 10, 11], 14, (5,), 11),
    ([4, 4, 4, 4, 13, 13, 14], 13, (4, 13, 14), None),
    ([6, 7, 8, 8, 8, 12, 12], 6, (6, 7, 8, 12), None),
    ([6, 7, 8, 8, 8, 12, 12], 7, (6, 7, 8, 12), None),
    ([6, 7, 8, 8, 8, 12, 12], 13, (6,), 12),
]


@pytest.mark.parametrize(("hand", "high", "legal", "refused"), LEGAL_TABLE)
def test_legal_cards_are_those_at_least_high_plus_the_lowest(
    hand: list[int], high: int, legal: tuple[int, ...], refused: int | None
) -> None:
    assert legal_cards(sorted(hand), high) == legal
    assert legal_cards(sorted(hand), None) == tuple(sorted(set(hand)))
    expected = {c for c in hand if c >= high} | {min(hand)}
    assert set(legal) == expected


@BOTH
@pytest.mark.parametrize(("hand", "high", "legal", "refused"), LEGAL_TABLE)
def test_the_engine_offers_and_enforces_the_legal_set(
    rules: GameRules, hand: list[int], high: int, legal: tuple[int, ...], refused: int | None
) -> None:
    rest = Counter(c for c in range(2, 15) for _ in range(4)) - Counter(hand) - Counter([high])
    leader = [high, *sorted(rest.elements())[:6]]
    state = new_game(rules, 2, [leader, hand])
    play(state, high)
    assert state.to_move == 1
    assert state.legal() == legal
    if refused is not None:
        with pytest.raises(IllegalMoveError):
            state.play(refused)
    for card in legal:
        other = new_game(rules, 2, [leader, hand])
        play(other, high, card)
        assert start_view(other).tricks[0].winner == (1 if card >= high else 0)


# (cards in play order from seat 0, winner)
WINNER_TABLE = [
    ([5, 9, 7], 1),
    ([9, 9, 2], 1),
    ([9, 2, 9], 2),
    ([4, 4, 4, 4], 3),
    ([2, 3, 4, 5], 3),
    ([14, 2, 3], 0),
    ([6, 6], 1),
    ([13, 12, 13, 11, 2, 13], 5),
]


@BOTH
@pytest.mark.parametrize(("cards", "winner"), WINNER_TABLE)
def test_the_highest_card_wins_and_ties_go_to_the_last_played(
    rules: GameRules, cards: list[int], winner: int
) -> None:
    state = GameState(rules, len(cards), 3)
    one_trick_round(state, list(cards))
    result = state.round_result(0)
    assert result.tricks[0].winner == winner
    assert result.loser == winner
    assert result.card == max(cards)


@BOTH
def test_seats_play_clockwise_from_the_leader_and_the_winner_leads_next(rules: GameRules) -> None:
    hands = [[2, 9, 12], [3, 4, 13], [5, 10, 11], [6, 7, 8]]
    state = new_game(rules, 4, hands)
    order = []
    for card in (2, 3, 5, 8):  # trick 1: seat 3's 8 wins
        order.append(state.to_move)
        state.play(card)
    assert order == [0, 1, 2, 3]
    order = []
    for card in (7, 9, 4, 11):  # trick 2, led by seat 3: seat 2's 11 wins
        order.append(state.to_move)
        state.play(card)
    assert order == [3, 0, 1, 2]
    assert state.to_move == 2
    assert [t.leader for t in start_view(state).tricks] == [0, 3]
    assert start_view(state).leader == 2


@BOTH
@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_a_round_has_one_trick_per_card_and_its_last_winner_loses(
    rules: GameRules, size: int
) -> None:
    cards = iter(sorted(c for c in range(2, 15) for _ in range(4)))
    hands = [[next(cards) for _ in range(size)] for _ in range(3)]
    state = new_game(rules, 3, hands, seed=11)
    finish_round(state, lambda s: s.legal()[-1])
    rnd = replay_of(state)["rounds"][0]
    assert rnd["hand_size"] == size
    assert len(rnd["tricks"]) == size
    last = rnd["tricks"][-1]
    assert rnd["loser"] == last["winner"]
    assert rnd["card"] == max(p["card"] for p in last["plays"])
    assert rnd["card"] == next(p["card"] for p in last["plays"] if p["seat"] == last["winner"])


# -- Five Cucumbers --------------------------------------------------------------------------

CUCUMBERS = {1: 0, 2: 1, 3: 1, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 4, 13: 4,
             14: 4, 15: 5}  # fmt: skip


@pytest.mark.parametrize("card", range(1, 16))
def test_five_cucumbers_penalty_follows_the_table(card: int) -> None:
    state = GameState(FC, 2, 5)
    lead = 1 if card == 1 else 2  # a penalty card of 1 can only lose to a 1
    one_trick_round(state, [lead, card])
    result = state.round_result(0)
    assert (result.loser, result.card) == (1, card)
    assert result.penalty == CUCUMBERS[card]
    assert result.doubled is (card == 1)
    assert result.scores == (0, CUCUMBERS[card])


@pytest.mark.parametrize("card", range(1, 16))
def test_five_cucumbers_penalty_doubles_when_a_1_is_in_the_last_trick(card: int) -> None:
    state = GameState(FC, 3, 5)
    one_trick_round(state, [1, 1, card])
    result = state.round_result(0)
    assert (result.loser, result.card, result.doubled) == (2, card, True)
    assert result.penalty == 2 * CUCUMBERS[card]  # once, although two 1s were played
    assert result.scores[2] == 2 * CUCUMBERS[card]


@pytest.mark.parametrize(
    ("cards", "penalty"),
    [([1, 1, 1, 7], 4), ([1, 1, 15], 10), ([1, 12], 8), ([1, 1], 0), ([1, 1, 1, 1], 0)],
)
def test_the_doubling_applies_once_however_many_1s(cards: list[int], penalty: int) -> None:
    state = GameState(FC, len(cards), 5)
    one_trick_round(state, list(cards))
    assert state.round_result(0).penalty == penalty
    assert state.round_result(0).doubled is True


def test_a_1_in_an_earlier_trick_does_not_double() -> None:
    state = new_game(FC, 2, [[1, 2], [3, 9]])
    play(state, 1, 3)  # seat 1 wins trick 1 and leads trick 2
    play(state, 9, 2)
    result = state.round_result(0)
    assert (result.loser, result.card, result.penalty, result.doubled) == (1, 9, 2, False)


@pytest.mark.parametrize(
    ("before", "cards", "after", "out"),
    [
        (4, [2, 2, 2], 5, False),  # exactly 5 is safe
        (0, [2, 2, 15], 5, False),
        (5, [1, 1, 1], 5, False),  # a doubled 1 still costs 0
        (5, [2, 2, 3], 6, True),  # 6 eliminates
        (4, [2, 2, 6], 6, True),
        (3, [2, 2, 10], 6, True),
        (0, [1, 2, 15], 10, True),
        (2, [1, 2, 5], 4, False),
    ],
)
def test_five_cucumbers_eliminates_a_seat_with_more_than_5(
    before: int, cards: list[int], after: int, out: bool
) -> None:
    state = GameState(FC, 3, 8)
    one_trick_round(state, cards, scores=[0, 0, before])
    result = state.round_result(0)
    assert result.loser == 2
    assert result.scores[2] == after
    assert result.eliminated == ((2,) if out else ())
    assert replay_of(state)["rounds"][0]["eliminated"] == ([2] if out else [])
    assert (2 in state.active) is not out
    assert not state.is_terminal
    assert len(state.hand(2)) == (0 if out else 7)
    assert start_view(state).eliminated == ((2,) if out else ())


@pytest.mark.parametrize("n", range(2, 7))
def test_five_cucumbers_round_one_is_led_by_seat_0_without_a_dealer(n: int) -> None:
    for seed in range(3):
        view = start_view(GameState(FC, n, seed))
        assert (view.leader, view.round_leader, view.dealer) == (0, 0, None)
        assert view.tricks_per_round == 7 and len(view.hand) == 7


# Five seats: (loser, eliminated by it, the next round's leader)
FC_LEADERS = [
    (3, False, 3),  # the loser leads the next round
    (2, True, 3),  # an eliminated loser: the next active seat clockwise
    (1, True, 3),  # ... skipping seat 2, already out
    (3, False, 3),
    (4, True, 0),  # ... wrapping around
    (0, False, 0),
]


def test_five_cucumbers_next_round_is_led_by_the_loser_or_the_next_active_seat() -> None:
    state = GameState(FC, 5, 21)
    for loser, out, leader in FC_LEADERS:
        kwargs = doomed(FC, state, loser) if out else {}
        lose_round(state, loser, 9, **kwargs)
        assert state.round_result().eliminated == ((loser,) if out else ())
        view = start_view(state)
        assert (view.leader, view.round_leader) == (leader, leader)
    leaders = [rnd["leader"] for rnd in replay_of(state)["rounds"]]
    assert leaders == [0] + [leader for _, _, leader in FC_LEADERS[:-1]]


def test_five_cucumbers_deals_seven_cards_to_every_active_seat_every_round() -> None:
    for n in range(2, 7):
        replay = replay_of(random_game(FC, n, n * 7, fault_rate=0.02))
        active = set(range(n))
        for rnd in replay["rounds"]:
            assert rnd["hand_size"] == 7 and rnd["dealer"] is None and rnd["half"] == []
            assert {s for s, h in enumerate(rnd["hands"]) if h is not None} == active
            assert all(len(h) == 7 for h in rnd["hands"] if h is not None)
            gone = set(rnd["eliminated"])
            gone |= {f["seat"] for f in replay["faults"] if f["round"] == rnd["number"]}
            active -= gone


# -- Concombre -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(2, 8))
def test_concombre_round_one_is_dealt_by_the_last_seat_and_led_by_seat_0(n: int) -> None:
    view = start_view(GameState(CC, n, 4))
    assert (view.dealer, view.leader, view.round_leader) == (n - 1, 0, 0)
    assert view.tricks_per_round == 7


def test_concombre_deal_passes_clockwise() -> None:
    state = GameState(CC, 4, 2)
    seen = []
    for _ in range(6):
        view = start_view(state)
        seen.append((view.dealer, view.round_leader))
        lose_round(state, 1, 4, scores=[0] * 4, penalty_cards=[[]] * 4)
    assert seen == [(3, 0), (0, 1), (1, 2), (2, 3), (3, 0), (0, 1)]


# Five seats: (seat eliminated in this round, the next round's dealer and leader)
CC_DEALERS = [
    (None, 0, 1),
    (1, 2, 3),  # the next dealer after 0 skips seat 1, out
    (2, 3, 4),  # the dealer itself goes out: the deal passes on from it
    (4, 0, 3),  # the leader skips seats 1 and 2
    (None, 3, 0),
]


def test_concombre_deal_and_lead_skip_seats_that_are_out() -> None:
    state = GameState(CC, 5, 6)
    assert (start_view(state).dealer, start_view(state).round_leader) == (4, 0)
    for out, dealer, leader in CC_DEALERS:
        loser = out if out is not None else state.active[-1]
        lose_round(state, loser, 4, **(doomed(CC, state, loser) if out is not None else {}))
        assert state.round_result().eliminated == (() if out is None else (out,))
        view = start_view(state)
        assert (view.dealer, view.round_leader, state.to_move) == (dealer, leader, leader)


def lying_cards(n: int, loser: int, extra: int) -> tuple[list[list[int]], list[int]]:
    """``extra`` penalty cards in front of the seats other than ``loser`` (5s, 6s and 7s;
    never 21 points), with the matching scores."""
    piles: list[list[int]] = [[] for _ in range(n)]
    others = [s for s in range(n) if s != loser]
    for i, card in enumerate(([5] * 4 + [6] * 4 + [7] * 4)[:extra]):
        piles[others[i % len(others)]].append(card)
    return piles, [sum(p) for p in piles]


# (players, penalty card, other penalty cards lying, next round's hand size)
HAND_SIZES = [
    (2, 5, 0, 5),
    (2, 14, 0, 14),
    (3, 14, 0, 14),  # 42 cards fit in 51
    (4, 12, 0, 12),
    (4, 13, 0, 7),  # 52 cards do not fit in the 51 left
    (4, 14, 0, 7),
    (4, 12, 3, 12),  # 48 cards fit exactly in 48
    (4, 12, 4, 7),  # 48 do not fit in 47
    (5, 10, 1, 10),  # 50 in 50
    (5, 10, 2, 7),
    (6, 7, 2, 7),
    (7, 8, 0, 7),  # 56 > 51, 49 fit
    (7, 8, 2, 7),  # 49 fit exactly in 49
    (7, 8, 3, 6),  # 49 > 48: 48 // 7
    (7, 9, 10, 5),  # 41 // 7
    (7, 4, 10, 4),
    (2, 4, 0, 4),
]


@pytest.mark.parametrize(("n", "card", "extra", "size"), HAND_SIZES)
def test_concombre_hand_size_is_the_previous_penalty_card_or_what_fits(
    n: int, card: int, extra: int, size: int
) -> None:
    seed = 1000 + n * 31 + card
    state = GameState(CC, n, seed)
    piles, scores = lying_cards(n, 0, extra)
    lose_round(state, 0, card, penalty_cards=piles, scores=scores)
    view = start_view(state)
    assert view.tricks_per_round == size
    assert view.penalty_cards[0] == (card,)
    # The deal of round 2 draws `size` cards per seat from the deck minus every card lying.
    rng = random.Random(seed)
    rng.sample(sorted(CC.deck), 7 * n)
    deck = Counter(CC.deck) - Counter([card, *(c for p in piles for c in p)])
    dealt = rng.sample(sorted(deck.elements()), size * n)
    for seat in range(n):
        assert state.hand(seat) == tuple(sorted(dealt[seat * size : (seat + 1) * size]))


@pytest.mark.parametrize("card", range(4, 15))
def test_concombre_penalty_is_the_card_rank_and_the_card_stays_in_front(card: int) -> None:
    state = GameState(CC, 3, card)
    lose_round(state, 1, card)
    result = state.round_result(0)
    assert (result.loser, result.card, result.penalty, result.doubled) == (1, card, card, False)
    assert result.scores == (0, card, 0)
    assert start_view(state).penalty_cards == ((), (card,), ())
    lose_round(state, 2, 4)
    assert start_view(state).penalty_cards == ((), (card,), (4,))
    assert start_view(state).scores == (0, card, 4)


# (score, penalty cards in front, penalty card lost with, score after, cards kept, half)
HALF_TABLE = [
    (16, [9, 7], 5, 9, [9], True),  # exactly 21
    (19, [10, 9], 4, 10, [10], True),
    (8, [8], 13, 13, [13], True),  # the new card is the highest
    (19, [10, 9], 14, 14, [14], True),
    (12, [9, 3], 9, 9, [9], True),  # two 9s: one is kept
    (15, [8, 7], 5, 20, [8, 7, 5], False),  # 20 is not 21
    (0, [], 14, 14, [14], False),
]


@pytest.mark.parametrize(("score", "pile", "card", "after", "kept", "half"), HALF_TABLE)
def test_concombre_half_cucumber_at_21_keeps_the_highest_card(
    score: int, pile: list[int], card: int, after: int, kept: list[int], half: bool
) -> None:
    seed = score * 100 + card
    state = GameState(CC, 3, seed)
    lose_round(state, 2, card, scores=[0, 0, score], penalty_cards=[[], [], pile])
    result = state.round_result(0)
    assert result.scores[2] == after
    assert result.half == ((2,) if half else ())
    assert result.eliminated == ()
    view = start_view(state)
    assert view.active == (0, 1, 2)
    assert sorted(view.penalty_cards[2]) == sorted(kept)
    assert view.half_cucumbers == (False, False, half)
    # The returned cards are back in the deck of the next deal.
    assert_round_two_deck(state, seed, lying=kept)


def assert_round_two_deck(state: GameState, seed: int, lying: list[int]) -> None:
    n, size = state.num_players, start_view(state).tricks_per_round
    rng = random.Random(seed)
    rng.sample(sorted(state.rules.deck), 7 * n)
    deck = Counter(state.rules.deck) - Counter(lying)
    dealt = rng.sample(sorted(deck.elements()), size * len(state.active))
    for i, seat in enumerate(state.active):
        assert state.hand(seat) == tuple(sorted(dealt[i * size : (i + 1) * size]))


@pytest.mark.parametrize(
    ("pile", "card", "out"),
    [
        ([13], 8, True),  # 21 again
        ([13], 7, False),
        ([10], 14, True),
        ([4], 14, False),
        ([14, 2], 5, True),
        ([14, 2], 4, False),
    ],
)
def test_concombre_reaching_21_again_eliminates_and_returns_the_cards(
    pile: list[int], card: int, out: bool
) -> None:
    seed = 7 * sum(pile) + card
    state = GameState(CC, 3, seed)
    lose_round(
        state, 2, card, scores=[0, 0, sum(pile)], penalty_cards=[[], [], pile],
        half=[False, False, True],
    )  # fmt: skip
    result = state.round_result(0)
    assert result.scores[2] == sum(pile) + card
    assert result.eliminated == ((2,) if out else ())
    assert result.half == ()
    view = start_view(state)
    assert view.active == ((0, 1) if out else (0, 1, 2))
    assert view.eliminated == ((2,) if out else ())
    assert sorted(view.penalty_cards[2]) == ([] if out else sorted([*pile, card]))
    assert_round_two_deck(state, seed, lying=[] if out else [*pile, card])


def test_concombre_rounds_are_never_doubled() -> None:
    replay = replay_of(random_game(CC, 4, 5))
    assert all(rnd["doubled"] is False for rnd in replay["rounds"])


# -- faults ----------------------------------------------------------------------------------

FAULT_HANDS = [
    [2, 5, 6, 9, 11, 13, 14],
    [3, 4, 4, 8, 10, 12, 14],
    [2, 3, 7, 7, 9, 12, 13],
]


@BOTH
@pytest.mark.parametrize("kind", list(FaultKind))
def test_a_fault_is_recorded_and_the_engine_plays_the_lowest_card_to_round_end(
    rules: GameRules, kind: FaultKind
) -> None:
    state = new_game(rules, 3, FAULT_HANDS)
    play(state, 9, 10, 12)  # seat 2 wins trick 1
    play(state, 13)  # trick 2: seat 2 leads a 13, seat 0 is to move
    assert state.to_move == 0
    recorded = state.fault(kind, "line one\nline two")
    assert (recorded.seat, recorded.round, recorded.trick, recorded.kind) == (0, 1, 2, kind)
    assert recorded.detail == "line one line two"
    assert state.faults == [recorded]
    movers = []
    while state.round_number == 1 and state.to_move is not None:
        movers.append(state.to_move)
        state.play(state.legal()[-1])
    assert 0 not in movers  # the engine decides for seat 0 from now on
    rnd = replay_of(state)["rounds"][0]
    hand = list(FAULT_HANDS[0])
    for t, trick in enumerate(rnd["tricks"], 1):
        for p in trick["plays"]:
            if p["seat"] != 0:
                assert "auto" not in p
                continue
            if t >= 2:
                assert p == {"seat": 0, "card": min(hand), "auto": True}
            else:
                assert "auto" not in p
            hand.remove(p["card"])
    assert replay_of(state)["faults"] == [
        {"seat": 0, "round": 1, "trick": 2, "kind": kind.value, "detail": "line one line two"}
    ]


@BOTH
def test_a_faulted_seat_is_disqualified_at_the_end_of_the_round(rules: GameRules) -> None:
    state = GameState(rules, 3, 13)
    play(state, state.legal()[0])
    state.fault(FaultKind.TIMEOUT, "no move within 1 s")
    assert 1 in state.active  # still in the game until the round ends
    finish_round(state)
    result = state.round_result(0)
    assert result.disqualified == (1,)
    assert 1 not in result.eliminated
    assert state.active == (0, 2)
    view = start_view(state)
    assert view.disqualified == (1,) and view.active == (0, 2)
    assert state.hand(1) == ()
    assert len(state.hand(0)) == len(state.hand(2)) == view.tricks_per_round


@BOTH
def test_a_disqualification_takes_precedence_over_an_elimination(rules: GameRules) -> None:
    state = GameState(rules, 3, 17)
    one_trick_round(state, [2, 3, 9], faults=(2,), **doomed(rules, state, 2))
    result = state.round_result(0)
    assert result.loser == 2
    assert result.eliminated == ()
    assert result.disqualified == (2,)
    expected = 5 + 2 if rules is FC else 17 + 9  # rules.md, the engine's decisions (c): it pays
    assert result.scores[2] == expected
    assert replay_of(state)["rounds"][0]["eliminated"] == []
    assert start_view(state).eliminated == ()
    assert start_view(state).disqualified == (2,)


def test_a_disqualified_seat_still_earns_its_half_cucumber_and_returns_its_cards() -> None:
    seed = 23
    state = GameState(CC, 3, seed)
    one_trick_round(
        state, [2, 3, 5], faults=(2,), scores=[4, 0, 16], penalty_cards=[[4], [], [9, 7]]
    )
    result = state.round_result(0)
    assert result.half == (2,)  # rules.md, the engine's decisions (c)
    assert result.scores == (4, 0, 9)
    assert result.disqualified == (2,)
    view = start_view(state)
    assert view.penalty_cards == ((4,), (), ())  # the engine's decisions (b): the 9 is back
    assert view.half_cucumbers == (False, False, True)
    assert_round_two_deck(state, seed, lying=[4])


@BOTH
def test_a_disqualified_seats_penalty_cards_return_to_the_deck(rules: GameRules) -> None:
    seed = 29
    state = GameState(rules, 3, seed)
    if rules is CC:
        kwargs: dict[str, Any] = {"scores": [0, 17, 6], "penalty_cards": [[], [12, 5], [6]]}
    else:
        kwargs = {"scores": [0, 3, 2]}
    one_trick_round(state, [2, 3, 9], faults=(1,), **kwargs)
    assert state.round_result(0).disqualified == (1,)
    assert start_view(state).penalty_cards[1] == ()
    lying = [6, 9] if rules is CC else []
    assert_round_two_deck(state, seed, lying=lying)


def test_five_cucumbers_after_a_disqualified_loser_the_next_active_seat_leads() -> None:
    state = GameState(FC, 4, 31)
    one_trick_round(state, [2, 9, 3, 4], faults=(1,))
    assert state.round_result(0).loser == 1
    assert state.active == (0, 2, 3)
    assert start_view(state).round_leader == 2


def test_concombre_the_deal_skips_a_disqualified_seat() -> None:
    state = GameState(CC, 4, 37)
    one_trick_round(state, [2, 9, 3, 4], faults=(0,))
    view = start_view(state)
    assert view.active == (1, 2, 3)
    assert (view.dealer, view.round_leader) == (1, 2)


@BOTH
@pytest.mark.parametrize("faulty", [0, 1])
def test_with_one_seat_left_the_game_ends(rules: GameRules, faulty: int) -> None:
    state = GameState(rules, 2, 41)
    if faulty == 1:
        play(state, state.legal()[0])
    state.fault(FaultKind.CRASH, "boom")
    assert state.to_move == 1 - faulty
    finish_round(state)
    assert state.is_terminal
    assert state.to_move is None and state.legal() == ()
    assert state.placement() == [1 - faulty, faulty]
    replay = replay_of(state)
    assert len(replay["rounds"]) == 1 and replay["placement"] == [1 - faulty, faulty]
    assert replay["capped"] is False
    with pytest.raises(GameOverError):
        state.play(2)
    with pytest.raises(GameOverError):
        state.fault(FaultKind.CRASH, "again")


@BOTH
def test_placement_ranks_active_then_eliminated_then_disqualified_latest_first(
    rules: GameRules,
) -> None:
    state = GameState(rules, 5, 43)
    # Round 1: seat 3 faults, seat 1 is eliminated.
    one_trick_round(state, [2, 9, 2, 3, 3], faults=(3,), **doomed(rules, state, 1))
    assert state.round_result().eliminated == (1,)
    assert state.round_result().disqualified == (3,)
    assert state.active == (0, 2, 4)
    # Round 2: seat 4 faults, seat 0 is eliminated: seat 2 is the last one left.
    one_trick_round(state, [9, None, 2, None, 3], faults=(4,), **doomed(rules, state, 0))
    assert state.is_terminal
    assert state.placement() == [2, 0, 1, 4, 3]
    assert replay_of(state)["placement"] == [2, 0, 1, 4, 3]


@BOTH
@pytest.mark.parametrize(
    ("first", "second", "tail"),
    [((2, 1), (0, 2), [0, 2]), ((0, 1), (2, 1), [2, 0]), ((3, 1), (0, 3), [0, 3])],
)
def test_disqualifications_in_one_round_rank_the_later_fault_higher(
    rules: GameRules, first: tuple[int, int], second: tuple[int, int], tail: list[int]
) -> None:
    state = GameState(rules, 5, 47)
    pending = dict([first, second])  # seat -> trick at which it faults
    while state.round_number == 1:
        seat = state.to_move
        assert seat is not None
        if pending.get(seat) == state.trick_number:
            del pending[seat]
            state.fault(FaultKind.ILLEGAL_MOVE, "played 99")
        else:
            state.play(state.legal()[0])
    assert [f.seat for f in state.faults] == [first[0], second[0]]
    assert state.round_result(0).disqualified == (first[0], second[0])
    finish_game(state)
    placement = state.placement()
    assert placement[-2:] == tail
    assert sorted(placement) == list(range(5))


@BOTH
def test_a_disqualified_seat_ranks_below_a_seat_eliminated_before_it(rules: GameRules) -> None:
    state = GameState(rules, 4, 53)
    lose_round(state, 1, 9, **doomed(rules, state, 1))
    assert state.round_result().eliminated == (1,)
    one_trick_round(state, [2, None, 3, 4], faults=(3,))
    assert state.round_result().disqualified == (3,)
    finish_game(state)
    placement = state.placement()
    assert placement[2:] == [1, 3]
    assert sorted(placement[:2]) == [0, 2]


def test_a_fault_detail_is_one_short_line() -> None:
    state = GameState(FC, 2, 1)
    recorded = state.fault(FaultKind.PROTOCOL, "garbage\n" * 1000)
    assert len(recorded.detail) <= 500
    assert "\n" not in recorded.detail


def test_an_illegal_answer_is_quoted_in_at_most_forty_characters() -> None:
    state = GameState(FC, 2, 1)
    assert illegal_move_detail(10**100, state.legal()).startswith(f"played 1{'0' * 36}..., not")
    assert illegal_move_detail("x" * 38, ()).startswith(f"returned {'x' * 38!r} (str)")
    assert clipped("y" * 40) == "y" * 40
    assert clipped("y" * 41) == "y" * 37 + "..."


# -- the end of the game and the round cap ---------------------------------------------------


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_the_game_goes_on_until_at_most_one_seat_is_active(rules: GameRules, n: int) -> None:
    for seed in range(4):
        state = random_game(rules, n, seed, fault_rate=0.005)
        replay = replay_of(state)
        assert len(state.active) <= 1 and not state.capped
        active = set(range(n))
        for i, rnd in enumerate(replay["rounds"]):
            assert len(active) >= 2, f"round {i + 1} played with {active}"
            active -= set(rnd["eliminated"])
            active -= {f["seat"] for f in replay["faults"] if f["round"] == rnd["number"]}
        assert len(active) <= 1
        assert replay["placement"][: len(active)] == sorted(active)


def capped_scores(rules: GameRules) -> dict[str, Any]:
    if rules is FC:
        return {"scores": [2, 1, 3, 0]}
    return {"scores": [6, 0, 9, 0], "penalty_cards": [[6], [], [9], []]}


@BOTH
def test_the_round_cap_stops_the_game_and_ranks_by_points_then_seat(rules: GameRules) -> None:
    state = GameState(rules, 4, 59)
    card = 4 if rules is FC else 6  # FC: 2+1 ties seat 0; Concombre: 0+6 ties seat 0
    lose_round(state, 1, card, round_number=ROUND_CAP, **capped_scores(rules))
    assert state.is_terminal and state.capped
    assert state.scores[0] == state.scores[1]
    assert state.placement() == [3, 0, 1, 2]
    replay = replay_of(state)
    assert replay["capped"] is True
    assert replay["placement"] == [3, 0, 1, 2]
    assert replay["rounds"][-1]["number"] == 1000


@BOTH
def test_the_round_before_the_cap_does_not_stop_the_game(rules: GameRules) -> None:
    state = GameState(rules, 4, 61)
    lose_round(state, 1, 4, round_number=ROUND_CAP - 1)
    assert not state.is_terminal and not state.capped
    assert state.round_number == ROUND_CAP


def test_the_round_cap_ranks_eliminated_seats_after_the_active_ones() -> None:
    state = GameState(FC, 3, 67)
    lose_round(state, 2, 9, scores=[3, 1, 5], round_number=1000)
    assert state.capped
    assert state.placement() == [1, 0, 2]


@BOTH
@pytest.mark.parametrize("cap", [1, 2, 3])
def test_a_lowered_round_cap_stops_after_that_many_rounds(
    rules: GameRules, cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engine, "ROUND_CAP", cap)
    for seed in range(5):
        state = GameState(rules, 6, seed)
        finish_game(state, lambda s: s.legal()[-1])
        replay = replay_of(state)
        if len(state.active) <= 1:
            assert not state.capped  # ended by the rules first
            continue
        assert state.capped and replay["capped"] is True
        assert len(replay["rounds"]) == cap
        ranked = sorted(state.active, key=lambda s: (state.scores[s], s))
        out = [s for rnd in replay["rounds"] for s in rnd["eliminated"]]
        assert replay["placement"] == ranked + out[::-1]


# -- strict move validation ------------------------------------------------------------------


class Seven(int):
    """An int subclass that equals 7."""


BAD_MOVES = [
    True, False, 7.0, "7", None, 10**100, -7, 0, 8, 16, Seven(7), [7], (7,), b"7",
    Fraction(7), complex(7), {"card": 7},
]  # fmt: skip
BAD_IDS = [type(m).__name__ + ":" + repr(m)[:12] for m in BAD_MOVES]


def snapshot(state: GameState) -> str:
    return json.dumps(
        {
            "to_move": state.to_move,
            "legal": state.legal(),
            "hands": [state.hand(s) for s in range(state.num_players)],
            "scores": state.scores,
            "faults": [f.to_json() for f in state.faults],
            "replay": replay_of(state),
            "view": start_view(state).to_json(),
        }
    )


@BOTH
@pytest.mark.parametrize("leading", [True, False], ids=["leader", "follower"])
@pytest.mark.parametrize("move", BAD_MOVES, ids=BAD_IDS)
def test_a_malformed_or_illegal_move_is_refused_and_changes_nothing(
    rules: GameRules, leading: bool, move: object
) -> None:
    # Seat 0 holds a 7 (and, in Five Cucumbers, a 1 that True would equal); seat 1 holds a 7
    # and a 5 that is in hand but illegal on the 6 led.
    low = 1 if rules is FC else 2
    hands = [[low, 6, 7, 9, 10, 11, 12], [2, 5, 7, 7, 13, 13, 14]]
    state = new_game(rules, 2, hands)
    if not leading:
        play(state, 6)
        assert state.legal() == (2, 7, 13, 14)
    before = snapshot(state)
    with pytest.raises(IllegalMoveError):
        state.play(move)
    assert snapshot(state) == before
    state.play(7)  # the real card is still accepted
    assert state.hand(0 if leading else 1).count(7) == (0 if leading else 1)


@BOTH
def test_a_card_in_hand_below_the_high_card_is_refused(rules: GameRules) -> None:
    state = new_game(rules, 2, [[2, 6, 7, 9, 10, 11, 12], [2, 5, 7, 7, 13, 13, 14]])
    play(state, 6)
    before = snapshot(state)
    with pytest.raises(IllegalMoveError, match="not a legal card"):
        state.play(5)
    assert snapshot(state) == before


def test_illegal_move_error_is_a_value_error() -> None:
    assert issubclass(IllegalMoveError, ValueError)
