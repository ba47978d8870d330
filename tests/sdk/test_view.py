"""The per-seat :class:`View`: immutable, only its own seat's information, and every public
field equal to what the replay says at that moment."""

from __future__ import annotations

import copy
import functools
import json
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from cucumbers.engine import GameState
from cucumbers.faults import FaultKind
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules
from cucumbers.view import GameResult, GameStart, Play, RoundResult, Trick, View
from tests.sdk.enginekit import GAME_IDS, GAMES, TABLE_IDS, TABLES, players

BOTH = pytest.mark.parametrize("rules", GAMES, ids=GAME_IDS)


@dataclass(frozen=True)
class Seen:
    """One decision: the view given, and the engine's hands and legal set at that moment."""

    view: View
    hands: tuple[tuple[int, ...], ...]
    legal: tuple[int, ...]


def play_and_watch(
    rules: GameRules, n: int, seed: int, fault_rate: float = 0.01
) -> tuple[GameState, list[Seen]]:
    """A random game (with random faults), keeping every view handed out."""
    state = GameState(rules, n, seed)
    rng = random.Random(seed)
    seen = []
    while (seat := state.to_move) is not None:
        bank = round(rng.uniform(0, 10), 3)
        view = state.view(seat, 0.5, bank)
        assert (view.move_seconds, view.bank_seconds) == (0.5, bank)
        seen.append(Seen(view, tuple(state.hand(s) for s in range(n)), state.legal()))
        if rng.random() < fault_rate:
            state.fault(FaultKind.TIMEOUT, "slow")
        else:
            state.play(rng.choice(state.legal()))
    return state, seen


def games() -> Iterator[tuple[GameRules, int, int]]:
    for rules, n in TABLES:
        for seed in range(3):
            yield rules, n, 100 * n + seed


GAME_CASES = list(games())
GAME_CASE_IDS = [f"{r.name}-{n}p-{s}" for r, n, s in GAME_CASES]


@functools.cache
def played(rules: GameRules, n: int, seed: int) -> tuple[GameState, list[Seen]]:
    """The game of one case, played once per test session."""
    return play_and_watch(rules, n, seed)


CASES = pytest.mark.parametrize(("rules", "n", "seed"), GAME_CASES, ids=GAME_CASE_IDS)


def test_a_view_cannot_be_changed() -> None:
    view = GameState(CONCOMBRE, 3, 1).view(0)
    for field in View._fields:
        with pytest.raises(AttributeError):
            setattr(view, field, getattr(view, field))
    with pytest.raises(TypeError):
        view[3] = ()  # type: ignore[index]


def only_immutable(value: object) -> bool:
    if isinstance(value, tuple):
        return all(only_immutable(v) for v in value)
    return value is None or isinstance(value, int | float | str | bool)


@CASES
def test_every_part_of_every_view_is_immutable(rules: GameRules, n: int, seed: int) -> None:
    for s in played(rules, n, seed)[1]:
        assert only_immutable(tuple(s.view)), s.view
        hash(s.view)


@CASES
def test_a_view_holds_its_own_hand_sorted_and_the_engines_legal_set(
    rules: GameRules, n: int, seed: int
) -> None:
    for s in played(rules, n, seed)[1]:
        view = s.view
        assert view.hand == s.hands[view.seat]
        assert list(view.hand) == sorted(view.hand)
        assert view.legal == s.legal
        assert list(view.legal) == sorted(set(view.legal))
        assert set(view.legal) <= set(view.hand)


@CASES
def test_legal_with_copies_is_every_copy_of_a_legal_card_in_the_hand(
    rules: GameRules, n: int, seed: int
) -> None:
    for s in played(rules, n, seed)[1]:
        view, hand = s.view, Counter(s.hands[s.view.seat])
        with_copies = view.legal_with_copies()
        assert list(with_copies) == sorted(with_copies)
        assert Counter(with_copies) == {card: hand[card] for card in view.legal}


@CASES
def test_hand_sizes_and_unseen_cards_agree_with_the_engines_hands(
    rules: GameRules, n: int, seed: int
) -> None:
    for s in played(rules, n, seed)[1]:
        view = s.view
        sizes = view.hand_sizes()
        assert len(sizes) == n
        for seat in range(n):
            assert sizes[seat] == (len(s.hands[seat]) if seat in view.active else 0)
        unseen = Counter(view.unseen_cards())
        assert list(view.unseen_cards()) == sorted(unseen.elements())
        # Every card is exactly one of: in my hand, played, a penalty card, unseen.
        accounted = unseen + Counter(view.hand) + Counter(view.played_this_round())
        for cards in view.penalty_cards:
            accounted.update(cards)
        assert accounted == Counter(rules.deck)
        # The other hands in play are among the unseen cards.
        others = Counter(c for seat in view.active if seat != view.seat for c in s.hands[seat])
        assert not others - unseen


def int_tuples(value: object) -> Iterator[tuple[int, ...]]:
    """Every tuple of ints inside ``value``, at any depth."""
    if isinstance(value, tuple):
        if value and all(type(v) is int for v in value):
            yield value
        for v in value:
            yield from int_tuples(v)


@CASES
def test_no_other_seats_hand_can_be_found_in_a_view(rules: GameRules, n: int, seed: int) -> None:
    for s in played(rules, n, seed)[1]:
        view = s.view
        assert set(view.to_json()) == set(View._fields)
        found = set(int_tuples(tuple(view))) - {view.hand}
        for seat, hand in enumerate(s.hands):
            if seat != view.seat and len(hand) >= 3 and hand != view.hand:
                assert hand not in found, f"seat {seat}'s hand {hand} is in {view}"


@BOTH
@pytest.mark.parametrize("n", [2, 4, 6])
def test_a_view_is_the_same_whatever_the_other_seats_hold(rules: GameRules, n: int) -> None:
    # The information set: giving the other seats other unplayed cards (same sizes) must
    # not change anything the seat to move sees.
    state = GameState(rules, n, 2024 + n)
    rng = random.Random(n)
    checked = 0
    while (seat := state.to_move) is not None and checked < 60:
        others = [s for s in state.active if s != seat and state.hand(s)]
        twin = copy.deepcopy(state)
        pool = Counter(rules.deck) - Counter(state.hand(seat))
        cards = list(pool.elements())
        rng.shuffle(cards)
        for s in others:
            size = len(twin._hands[s])
            twin._hands[s] = hand = tuple(sorted(cards[:size]))
            twin._masks[s] = sum(1 << card for card in set(hand))
            del cards[:size]
        if [twin.hand(s) for s in others] != [state.hand(s) for s in others]:
            assert twin.view(seat, 1.0, 2.0) == state.view(seat, 1.0, 2.0)
            checked += 1
        state.play(rng.choice(state.legal()))
    assert checked > 10


def expected_public(replay: dict[str, Any]) -> list[dict[str, Any]]:
    """The public state at the start of each round, re-derived from the replay's results."""
    n = len(replay["players"])
    scores = [0] * n
    eliminated: list[int] = []
    disqualified: list[int] = []
    half = [False] * n
    piles: list[list[int]] = [[] for _ in range(n)]
    out = []
    for rnd in replay["rounds"]:
        out.append(
            {
                "scores": tuple(scores),
                "active": tuple(s for s, h in enumerate(rnd["hands"]) if h is not None),
                "eliminated": tuple(eliminated),
                "disqualified": tuple(disqualified),
                "half_cucumbers": tuple(half),
                "penalty_cards": tuple(tuple(p) for p in piles),
                "dealer": rnd["dealer"],
                "round_leader": rnd["leader"],
                "tricks_per_round": rnd["hand_size"],
            }
        )
        if replay["game"] == "concombre":
            piles[rnd["loser"]].append(rnd["card"])
            for seat in rnd["half"]:
                half[seat] = True
                piles[seat] = [max(piles[seat])]
        gone = rnd["eliminated"] + [
            f["seat"] for f in replay["faults"] if f["round"] == rnd["number"]
        ]
        for seat in gone:
            piles[seat] = []
        eliminated += rnd["eliminated"]
        disqualified += [f["seat"] for f in replay["faults"] if f["round"] == rnd["number"]]
        scores = list(rnd["scores"])
    return out


def as_trick(trick: dict[str, Any]) -> Trick:
    return Trick(
        trick["leader"], tuple(Play(p["seat"], p["card"]) for p in trick["plays"]), trick["winner"]
    )


@CASES
def test_every_view_agrees_with_the_replay(rules: GameRules, n: int, seed: int) -> None:
    state, seen = played(rules, n, seed)
    replay = state.to_replay(players(n))
    public = expected_public(replay)
    for s in seen:
        view = s.view
        assert (view.game, view.num_players) == (str(rules.name), n)
        rnd = replay["rounds"][view.round_number - 1]
        for key, value in public[view.round_number - 1].items():
            assert getattr(view, key) == value, key
        assert 1 <= view.trick_number <= view.tricks_per_round
        done = rnd["tricks"][: view.trick_number - 1]
        assert view.tricks == tuple(as_trick(t) for t in done)
        current = rnd["tricks"][view.trick_number - 1]
        k = len(view.trick)
        assert view.trick == as_trick(current).plays[:k]
        assert current["plays"][k]["seat"] == view.seat  # it is this seat's turn
        assert view.leader == current["leader"]
        assert view.high == (max(p.card for p in view.trick) if view.trick else None)
        assert view.is_leading is (k == 0)
        assert view.is_last_trick is (view.trick_number == rnd["hand_size"])
        mine = list(rnd["hands"][view.seat])
        for trick in [*done, {"plays": current["plays"][:k]}]:
            for p in trick["plays"]:
                if p["seat"] == view.seat:
                    mine.remove(p["card"])
        assert view.hand == tuple(sorted(mine))
        before = [p["card"] for t in done for p in t["plays"]]
        assert view.played_this_round() == before + [p.card for p in view.trick]


def test_five_cucumbers_views_have_no_dealer_half_cucumbers_or_penalty_cards() -> None:
    _, seen = played(FIVE_CUCUMBERS, 4, 400)
    assert seen
    for s in seen:
        assert s.view.dealer is None
        assert s.view.half_cucumbers == (False,) * 4
        assert s.view.penalty_cards == ((),) * 4


def test_concombre_views_show_the_penalty_cards_and_half_cucumbers() -> None:
    shown = [s.view for case in GAME_CASES if case[0] is CONCOMBRE for s in played(*case)[1]]
    assert any(any(v.half_cucumbers) for v in shown)  # the cases reach a half-cucumber
    assert any(any(v.penalty_cards) for v in shown)
    assert all(v.dealer is not None for v in shown)


@BOTH
def test_only_the_seat_to_move_gets_a_view(rules: GameRules) -> None:
    state = GameState(rules, 3, 5)
    assert state.to_move == 0
    for seat in (1, 2):
        with pytest.raises(ValueError):
            state.view(seat)
    while state.to_move is not None:
        state.play(state.legal()[-1])
    for seat in range(3):
        with pytest.raises(ValueError):
            state.view(seat)


@CASES
def test_a_view_survives_a_json_round_trip(rules: GameRules, n: int, seed: int) -> None:
    for s in played(rules, n, seed)[1][::7]:
        data = s.view.to_json()
        assert View.from_json(data) == s.view
        text = json.dumps(data, allow_nan=False)
        back = View.from_json(json.loads(text))
        assert back == s.view
        assert all(type(p) is Play for p in back.trick)
        assert all(type(t) is Trick and all(type(p) is Play for p in t.plays) for t in back.tricks)
        assert json.dumps(back.to_json()) == text


def test_a_view_from_malformed_json_raises_a_plain_error() -> None:
    data = GameState(FIVE_CUCUMBERS, 2, 1).view(0).to_json()
    del data["legal"]
    with pytest.raises(KeyError):
        View.from_json(data)


def test_round_and_game_notices_survive_a_json_round_trip() -> None:
    state = GameState(CONCOMBRE, 3, 8)
    while state.to_move is not None:
        state.play(state.legal()[0])
    for i in range(state.rounds_finished):
        result = state.round_result(i)
        assert RoundResult.from_json(json.loads(json.dumps(result.to_json()))) == result
    start = GameStart("concombre", 1, 3, ("a", "b", "c"), 2, 12345, 1.0, 10.0)
    assert GameStart.from_json(json.loads(json.dumps(start.to_json()))) == start
    end = GameResult(1, 2, tuple(state.placement()), tuple(state.scores), False)
    assert GameResult.from_json(json.loads(json.dumps(end.to_json()))) == end


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_round_results_agree_with_the_replay(rules: GameRules, n: int) -> None:
    state, _ = played(rules, n, 100 * n)
    replay = state.to_replay(players(n))
    assert state.rounds_finished == len(replay["rounds"])
    for i, rnd in enumerate(replay["rounds"]):
        result = state.round_result(i)
        assert result.tricks == tuple(as_trick(t) for t in rnd["tricks"])
        for key in ("number", "dealer", "leader", "loser", "card", "penalty", "doubled"):
            assert getattr(result, key) == rnd[key]
        for key in ("scores", "eliminated", "half"):
            assert list(getattr(result, key)) == rnd[key]
        dq = [f["seat"] for f in replay["faults"] if f["round"] == rnd["number"]]
        assert list(result.disqualified) == dq
