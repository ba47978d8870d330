"""Invariants over thousands of random games of both games at every table size, with
random bots and random injected faults (OpenSpiel-style random playouts), plus golden
replays the engine must reproduce byte for byte.

Every replay must pass the independent validator, conserve the cards, be dealt exactly as
the seed says, and place every seat once. The games are deterministic: the same seeds give
the same bytes, in this process or another one with a different hash seed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules
from cucumbers.replay import dumps_replay, loads_replay
from cucumbers.validator import check_replay
from tests.sdk.enginekit import TABLE_IDS, TABLES, expected_deals, players, random_game
from tests.sdk.regen_golden import GOLDEN, GOLDEN_DIR, play_golden

REPO = Path(__file__).resolve().parents[2]
FAULT_RATES = (0.0, 0.0, 0.002, 0.01, 0.05, 0.3)


def game_replay(rules: GameRules, n: int, seed: int, **kwargs: Any) -> dict[str, Any]:
    return random_game(rules, n, seed, **kwargs).to_replay(players(n))


def assert_sound(replay: dict[str, Any]) -> None:
    """Every invariant of one finished game's replay."""
    assert check_replay(replay) == []
    rules = FIVE_CUCUMBERS if replay["game"] == "five-cucumbers" else CONCOMBRE
    n = len(replay["players"])
    assert sorted(replay["placement"]) == list(range(n))
    assert replay["capped"] is False
    deals = list(expected_deals(replay))
    lying: list[list[int]] = [[] for _ in range(n)]
    for rnd, (number, dealt) in zip(replay["rounds"], deals, strict=True):
        assert rnd["number"] == number
        hands = rnd["hands"]
        assert [h if h is None else sorted(h) for h in hands] == dealt
        # The hands are disjoint draws from the deck (minus Concombre's penalty cards).
        held = Counter(c for h in hands if h is not None for c in h)
        deck = Counter(rules.deck) - Counter(c for pile in lying for c in pile)
        assert not held - deck, f"round {number} deals cards the deck does not hold"
        # Every dealt card is played exactly once, by the seat that held it.
        for seat, hand in enumerate(hands):
            plays = [p["card"] for t in rnd["tricks"] for p in t["plays"] if p["seat"] == seat]
            assert sorted(plays) == sorted(hand or []), f"round {number} seat {seat}"
            if hand is not None:
                assert all(sum(p["seat"] == seat for p in t["plays"]) == 1 for t in rnd["tricks"])
        if rules is CONCOMBRE:
            lying[rnd["loser"]].append(rnd["card"])
            if rnd["loser"] in rnd["half"]:
                lying[rnd["loser"]] = [max(lying[rnd["loser"]])]
            gone = rnd["eliminated"] + [f["seat"] for f in replay["faults"] if f["round"] == number]
            for seat in gone:
                lying[seat] = []


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_random_games_keep_every_invariant(rules: GameRules, n: int) -> None:
    for seed in range(250):
        rate = FAULT_RATES[seed % len(FAULT_RATES)]
        replay = game_replay(rules, n, seed, move_seed=seed * 31 + n, fault_rate=rate, mixed=True)
        assert_sound(replay)


@settings(
    max_examples=300,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    table=st.sampled_from(TABLES),
    seed=st.integers(0, 2**48 - 1),
    move_seed=st.integers(0, 2**32),
    fault_rate=st.sampled_from(FAULT_RATES),
    mixed=st.booleans(),
)
def test_any_seed_and_any_bots_keep_every_invariant(
    table: tuple[GameRules, int], seed: int, move_seed: int, fault_rate: float, mixed: bool
) -> None:
    rules, n = table
    assert_sound(
        game_replay(rules, n, seed, move_seed=move_seed, fault_rate=fault_rate, mixed=mixed)
    )


def test_the_random_games_reach_every_outcome() -> None:
    # The invariants above are only worth something if the games they ran through reach
    # faults, eliminations, half-cucumbers, doubled penalties and every Concombre hand size.
    seen: Counter[str] = Counter()
    for rules, n in TABLES:
        for seed in range(250 if rules is CONCOMBRE else 40):
            rate = FAULT_RATES[seed % len(FAULT_RATES)]
            replay = game_replay(
                rules, n, seed, move_seed=seed * 31 + n, fault_rate=rate, mixed=True
            )
            seen["fault"] += bool(replay["faults"])
            seen["faults after round 1"] += any(f["round"] > 1 for f in replay["faults"])
            previous = None
            for rnd in replay["rounds"]:
                seen["eliminated"] += bool(rnd["eliminated"])
                seen["half"] += bool(rnd["half"])
                seen["doubled"] += rnd["doubled"]
                seen["auto"] += any(p.get("auto") for t in rnd["tricks"] for p in t["plays"])
                size = rnd["hand_size"]
                if previous is not None and rules is CONCOMBRE:
                    which = "rank" if size == previous else "seven" if size == 7 else "fit"
                    seen[f"hand size: {which}"] += 1
                previous = rnd["card"]
    for key in ("fault", "faults after round 1", "eliminated", "half", "doubled", "auto"):
        assert seen[key] > 5, key
    for key in ("rank", "seven", "fit"):
        assert seen[f"hand size: {key}"] > 0, key


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
def test_the_same_seeds_give_the_same_bytes_and_other_seeds_differ(
    rules: GameRules, n: int
) -> None:
    for seed in range(20):
        kwargs = {"move_seed": seed, "fault_rate": 0.01, "mixed": True}
        first = dumps_replay(game_replay(rules, n, seed, **kwargs))
        assert dumps_replay(game_replay(rules, n, seed, **kwargs)) == first
        other = game_replay(rules, n, seed + 1, **kwargs)
        assert dumps_replay(other) != first
        # The deal alone differs, whatever the bots do.
        assert other["rounds"][0]["hands"] != loads_replay(first)["rounds"][0]["hands"]


_DIGEST_SCRIPT = """
import hashlib, sys
from cucumbers.replay import dumps_replay
from tests.sdk.enginekit import TABLES, players, random_game
h = hashlib.sha256()
for rules, n in TABLES:
    for seed in range(5):
        state = random_game(rules, n, seed, fault_rate=0.01, mixed=True)
        h.update(dumps_replay(state.to_replay(players(n))))
print(h.hexdigest())
"""


def test_games_are_identical_in_other_processes_with_other_hash_seeds() -> None:
    here = hashlib.sha256()
    for rules, n in TABLES:
        for seed in range(5):
            here.update(dumps_replay(game_replay(rules, n, seed, fault_rate=0.01, mixed=True)))
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", _DIGEST_SCRIPT],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert out.stdout.strip() == here.hexdigest()


# -- golden replays ------------------------------------------------------------------------


@pytest.mark.parametrize("spec", GOLDEN, ids=[g.file_name for g in GOLDEN])
def test_the_engine_reproduces_the_golden_replay_byte_for_byte(spec: Any) -> None:
    path = GOLDEN_DIR / spec.file_name
    expected = path.read_bytes()
    actual = play_golden(spec)
    assert actual == expected, (
        f"the engine no longer reproduces {path.name}. If the change is deliberate, run"
        " `python -m tests.sdk.regen_golden` and commit the new files with the change."
    )


@pytest.mark.parametrize("spec", GOLDEN, ids=[g.file_name for g in GOLDEN])
def test_the_golden_replays_are_valid_and_cover_faults(spec: Any) -> None:
    replay = loads_replay((GOLDEN_DIR / spec.file_name).read_bytes())
    assert_sound(replay)
    assert (replay["game"], replay["seed"], len(replay["players"])) == (
        spec.game,
        spec.seed,
        spec.players,
    )
    faults = {(f["seat"], f["kind"]) for f in replay["faults"]}
    assert faults == {(seat, kind.value) for (seat, _), kind in spec.faults.items()}


def test_the_golden_files_cover_faults_eliminations_half_cucumbers_and_doubling() -> None:
    rounds = []
    faults = 0
    for spec in GOLDEN:
        replay = loads_replay((GOLDEN_DIR / spec.file_name).read_bytes())
        rounds += replay["rounds"]
        faults += len(replay["faults"])
    assert faults >= 4
    assert any(r["eliminated"] for r in rounds)
    assert any(r["half"] for r in rounds)
    assert any(r["doubled"] for r in rounds)
    assert any(any(p.get("auto") for t in r["tricks"] for p in t["plays"]) for r in rounds)


# -- a longer run ---------------------------------------------------------------------------


@pytest.mark.slow
def test_many_more_random_games_keep_every_invariant() -> None:
    # About 15 s by default; CUCUMBERS_SLOW_GAMES=5000 (games per table) before a release.
    games = int(os.environ.get("CUCUMBERS_SLOW_GAMES", "600"))
    for rules, n in TABLES:
        for seed in range(games):
            rate = FAULT_RATES[seed % len(FAULT_RATES)]
            replay = game_replay(rules, n, 10**6 + seed, fault_rate=rate, mixed=seed % 2 == 0)
            assert_sound(replay)
