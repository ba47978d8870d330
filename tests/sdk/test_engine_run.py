"""``GameState.run``, the engine's fast path, plays exactly the games that ``view`` and
``play`` play move by move: the same views, the same faults, the same replays."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from cucumbers.engine import GameState, IllegalMoveError
from cucumbers.faults import BotFault, FaultKind
from cucumbers.games import GameRules
from cucumbers.view import RoundResult, View
from tests.sdk.enginekit import TABLE_IDS, TABLES, players

Policy = Callable[[View], object]


def policies(n: int, seed: int, seen: list[View]) -> list[Policy]:
    """Random legal cards, with now and then a crash (a BotFault) or an answer that is not
    a legal int; every view asked is appended to ``seen``."""

    def make(rng: random.Random) -> Policy:
        def policy(view: View) -> object:
            seen.append(view)
            x = rng.random()
            if x < 0.01:
                raise BotFault(FaultKind.CRASH, f"crash of seat {view.seat}")
            if x < 0.02:
                return rng.choice([True, 99, 7.0, None])
            return view.legal[rng.randrange(len(view.legal))]

        return policy

    return [make(random.Random(seed * 100 + seat)) for seat in range(n)]


def step_by_step(state: GameState, chosen: list[Policy], banks: list[float]) -> None:
    """The match loop as it was before ``run``: one ``view`` and one ``play`` per move."""
    while (seat := state.to_move) is not None:
        view = state.view(seat, 1.0, banks[seat])
        try:
            card = chosen[seat](view)
        except BotFault as fault:
            state.fault(fault.kind, fault.detail, infrastructure=fault.infrastructure)
            continue
        try:
            state.play(card)
        except IllegalMoveError as error:
            state.fault(FaultKind.ILLEGAL_MOVE, str(error))


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_run_gives_the_views_faults_and_replay_of_view_and_play(rules: GameRules, n: int) -> None:
    faults = 0
    for seed in range(12):
        banks = [float(seat) for seat in range(n)]
        fast_views: list[View] = []
        results: list[RoundResult] = []
        fast = GameState(rules, n, seed)
        fast.run(
            policies(n, seed, fast_views), move_seconds=1.0, banks=banks, on_round=results.append
        )
        slow_views: list[View] = []
        slow = GameState(rules, n, seed)
        step_by_step(slow, policies(n, seed, slow_views), banks)
        assert fast_views == slow_views
        assert fast.to_replay(players(n)) == slow.to_replay(players(n))
        assert results == [slow.round_result(i) for i in range(slow.rounds_finished)]
        faults += len(fast.faults)
    assert faults > 0, "no fault was injected: the fault paths of run went untested"


def test_run_leaves_a_finished_game_finished() -> None:
    state = GameState(TABLES[0][0], 3, seed=4)
    state.run([lambda view: view.legal[0]] * 3)
    assert state.is_terminal and state.legal() == () and state.placement()
    state.run([lambda view: pytest.fail("asked for a move in a finished game")] * 3)


def test_an_exception_from_a_policy_leaves_the_game_at_that_decision() -> None:
    rules, n = TABLES[0]
    asked: list[View] = []

    def policy(view: View) -> object:
        if len(asked) == 10:
            raise KeyError("a bug in the bot")
        asked.append(view)
        return view.legal[0]

    state = GameState(rules, n, seed=9)
    with pytest.raises(KeyError):
        state.run([policy] * n)
    twin = GameState(rules, n, seed=9)
    for view in asked:
        twin.play(view.legal[0])
    assert state.to_move == twin.to_move and state.legal() == twin.legal()
    assert state.view(state.to_move) == twin.view(twin.to_move)  # type: ignore[arg-type]
    state.play(state.legal()[-1])
    twin.play(twin.legal()[-1])
    assert state.to_replay(players(n)) == twin.to_replay(players(n))
