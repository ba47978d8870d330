"""Known games for the viewer tests, played on the SDK's engine from fixed seeds, so every
position is known and the tests compute what the table must show from the replay itself."""

from __future__ import annotations

import random
from typing import Any

from cucumbers.engine import GameState
from cucumbers.faults import FaultKind
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules

#: Where the Five Cucumbers game's fault happens: seat 2, round 2, at its move in trick 3.
FAULT_SEAT, FAULT_ROUND, FAULT_TRICK = 2, 2, 3
FAULT_DETAIL = "no move within 1 s and the time bank </script><b>not html</b>"


def _players(n: int) -> list[dict[str, Any]]:
    owners = ["alice", "bob", None, "carol", "dave", "erin", "frank"]
    out: list[dict[str, Any]] = []
    for seat in range(n):
        entry: dict[str, Any] = {"seat": seat, "name": f"bot-{seat}"}
        if owners[seat]:
            entry |= {"name": f"{owners[seat]}/bot{seat}", "owner": owners[seat], "version": 1}
        out.append(entry)
    return out


def _play(rules: GameRules, n: int, seed: int, fault: bool) -> dict[str, Any]:
    """Seats 0 and 3 duck low, seat 1 plays high, the others play randomly (seeded)."""
    state = GameState(rules, n, seed)
    rng = random.Random(seed)
    while (seat := state.to_move) is not None:
        if (
            fault
            and seat == FAULT_SEAT
            and (state.round_number, state.trick_number) == (FAULT_ROUND, FAULT_TRICK)
        ):
            state.fault(FaultKind.TIMEOUT, FAULT_DETAIL)
            continue
        legal = state.legal()
        if seat in (0, 3):
            state.play(legal[0])
        elif seat == 1:
            state.play(legal[-1])
        else:
            state.play(rng.choice(legal))
    return state.to_replay(_players(n))


def five_cucumbers_game(seed: int = 11, *, fault: bool = True) -> dict[str, Any]:
    """A 4-seat Five Cucumbers game with a fault (seat 2) and eliminations."""
    return _play(FIVE_CUCUMBERS, 4, seed, fault)


def concombre_game(seed: int = 5) -> dict[str, Any]:
    """A 3-seat Concombre game without faults (penalty cards, half-cucumbers)."""
    return _play(CONCOMBRE, 3, seed, fault=False)


def full_table_game(concombre: bool) -> dict[str, Any]:
    """A game at the largest table of its rules (Concombre 7 seats, Five Cucumbers 6, with
    the fault): the longest end-of-game card the viewer shows."""
    rules = CONCOMBRE if concombre else FIVE_CUCUMBERS
    return _play(rules, rules.max_players, 5 if concombre else 11, fault=not concombre)
