"""The terminal rendering of a replay."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from cucumbers.render import render_replay
from tests.sdk.replay_fixtures import (
    HAND_MADE,
    concombre_half,
    concombre_two_faults,
    five_cucumbers_duel,
    five_cucumbers_fault,
    random_replay,
)


def lines_of(replay: dict[str, Any], **kwargs: Any) -> list[str]:
    return render_replay(replay, **kwargs).splitlines()


def test_it_draws_a_five_cucumbers_game_round_by_round() -> None:
    lines = lines_of(five_cucumbers_duel())
    assert lines[:3] == [
        "Five Cucumbers · no seed · engine 0.1.0 · 2 players",
        "  s0  bot0",
        "  s1  bot1",
    ]
    start = lines.index("Round 1 · leader s0 · 7 cards")
    assert lines[start + 1 : start + 4] == [
        "  hands  s0: 1 4 6 9 10 12 14",
        "         s1: 3 5 6 9 11 13 15",
        "  T1  s0:9   s1:9   → s1",
    ]
    assert "  T7  s0:12  s1:15  → s1" in lines
    assert "  loser s1 with 15: +5 cucumbers" in lines
    assert "  scores  s0 0  s1 5" in lines
    assert "Round 2 · leader s1 · 7 cards" in lines
    assert "  loser s0 with 14: +8 cucumbers (doubled: a 1 in the last trick)" in lines
    assert "  eliminated: s0" in lines
    assert lines[-3:] == ["Placement", "  1. s1  bot1", "  2. s0  bot0  (eliminated in round 2)"]


def test_it_shows_the_concombre_dealer_points_and_half_cucumbers() -> None:
    lines = lines_of(concombre_half())
    assert lines[0].startswith("Concombre · no seed")
    assert "Round 1 · dealer s1 · leader s0 · 7 cards" in lines
    assert "Round 2 · dealer s0 · leader s1 · 9 cards" in lines
    assert "  loser s0 with Q: +12 points" in lines
    assert "  half-cucumber: s0" in lines
    assert "  scores  s0 12  s1 0" in lines
    assert "Round 3 · dealer s1 · leader s0 · 12 cards" in lines
    # The rules name the Concombre cards above 10: J, Q, K, A.
    assert "  T12 s1:K   s0:A   → s0" in lines


def test_it_shows_a_fault_where_it_happened_and_marks_auto_plays() -> None:
    lines = lines_of(five_cucumbers_fault())
    at = lines.index("  T5  s1:6*  s2:9   s0:12  → s0")
    assert lines[at - 1] == (
        "  ! s1 faulted (timeout) at trick 5 and is auto-played to the end of the round:"
        " no move in 1.0 s"
    )
    assert lines[at - 2].startswith("  T4  ")
    assert "  T7  s1:13* s2:6   s0:1   → s1" in lines
    assert "  disqualified: s1 (faulted)" in lines
    round2 = lines.index("Round 2 · leader s2 · 7 cards")
    assert lines[round2 + 1 : round2 + 3] == [  # no hand for the disqualified seat
        "  hands  s0: 2 4 6 8 10 12 15",
        "         s2: 1 3 5 7 9 11 13",
    ]
    assert "  3. s1  bot1  (disqualified in round 1: timeout)" in lines
    assert lines[-1] == "* = auto play: the engine played the lowest card for a faulted bot"


def test_it_ranks_two_disqualified_seats_as_recorded() -> None:
    lines = lines_of(concombre_two_faults())
    assert lines[-5:-1] == [
        "Placement",
        "  1. s0  bot0",
        "  2. s2  bot2  (disqualified in round 2: crash)",
        "  3. s1  bot1  (disqualified in round 1: illegal_move)",
    ]


def test_a_capped_game_says_so() -> None:
    replay = five_cucumbers_duel()
    replay["capped"] = True
    assert "Stopped at the 1000-round safety cap." in lines_of(replay)


def test_it_uses_color_only_when_asked() -> None:
    replay = five_cucumbers_fault()
    assert "\x1b[" not in render_replay(replay)
    colored = render_replay(replay, color=True)
    assert "\x1b[1mRound 1 · leader s0 · 7 cards\x1b[0m" in colored
    assert "\x1b[33ms1:6* \x1b[0m" in colored


def test_bot_supplied_text_cannot_drive_the_terminal() -> None:
    replay = five_cucumbers_fault()
    replay["players"][1]["name"] = "evil\x1b[2J"
    replay["faults"][0]["detail"] = "bye\x1b]0;owned\x07"
    text = render_replay(replay)
    assert "\x1b" not in text and "\x07" not in text
    assert "evil\\x1b[2J" in text


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_every_line_fits_in_100_columns(name: str) -> None:
    replay = HAND_MADE[name]()
    for fault in replay["faults"]:
        fault["detail"] = "a long bot traceback " * 23  # near the 500-character limit
    assert max(len(line) for line in lines_of(replay)) <= 100


def test_a_big_concombre_table_fits_in_100_columns() -> None:
    for seed in range(20):
        replay = random_replay(seed, "concombre", 7, fault_rate=0.01)
        assert max(len(line) for line in lines_of(replay)) <= 100


def test_it_draws_broken_replays_rather_than_failing() -> None:
    rng = random.Random(3)
    junk: list[object] = [None, True, -1, "x", [], {}, [None], {"a": 1}]
    assert render_replay({}).startswith("None · no seed")
    for _ in range(500):
        replay: Any = copy.deepcopy(rng.choice(list(HAND_MADE.values()))())
        node = replay
        while isinstance(node, (dict, list)) and node and rng.random() < 0.8:
            key = rng.choice(list(node) if isinstance(node, dict) else range(len(node)))
            if rng.random() < 0.3 or not isinstance(node[key], (dict, list)):
                node[key] = copy.deepcopy(rng.choice(junk))
                break
            node = node[key]
        assert isinstance(render_replay(replay), str)
