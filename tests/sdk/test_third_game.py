"""A third game, in this one file: Five Cucumbers with a 72-card deck (ranks 1..18) where a
seat is out above 7 cucumbers. Registered by the tests, it must play through the engine,
``cucumbers play``, the replay writer and the terminal renderer with no other file changed:
the proof that a game is one module and a registration."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from cucumbers.cli import main as cucumbers
from cucumbers.engine import GameState
from cucumbers.games import FiveCucumbersRules, register, registry, rules_for, unregister
from cucumbers.render import render_replay
from cucumbers.replay import load_replay
from cucumbers.viewer_html import replay_page
from tests.sdk.enginekit import lose_round, random_game


class LongFiveCucumbers(FiveCucumbersRules):
    """Ranks 1..18, four of each; 16 and 17 cost 5 cucumbers, 18 costs 6; out above 7."""

    name = "five-cucumbers-long"
    title = "Five Cucumbers (long)"
    ranks = tuple(range(1, 19))
    elimination_above: ClassVar[int | None] = 7
    cucumbers: ClassVar[tuple[int, ...]] = (*FiveCucumbersRules.cucumbers, 5, 5, 6)

    __slots__ = ()


class OutAboveSeven(FiveCucumbersRules):
    """Only the elimination limit changed (never registered: the engine takes the object)."""

    elimination_above: ClassVar[int | None] = 7

    __slots__ = ()


LONG = LongFiveCucumbers()


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register(LONG)
    yield
    unregister(LONG.name)


def test_a_subclass_out_above_7_keeps_a_seat_at_6_and_7_and_eliminates_it_at_8() -> None:
    state = GameState(OutAboveSeven(), 3, seed=1)
    lose_round(state, 0, 4, scores=[5, 0, 0])  # a 4 costs 1 cucumber: 6
    assert state.scores[0] == 6 and 0 in state.active
    lose_round(state, 0, 4)  # 7: still safe
    assert state.scores[0] == 7 and 0 in state.active
    lose_round(state, 0, 4)  # 8: out
    assert state.scores[0] == 8 and 0 not in state.active
    assert state.round_result().eliminated == (0,)


def test_the_registry_lists_the_variant_after_the_built_in_games() -> None:
    assert list(registry()) == ["five-cucumbers", "concombre", LONG.name]
    assert rules_for(LONG.name) is LONG
    with pytest.raises(ValueError, match="already registered"):
        register(LongFiveCucumbers())


@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_variant_deals_from_72_cards_and_eliminates_only_above_7(players: int) -> None:
    high_cards = 0
    for seed in range(30):
        replay = random_game(LONG, players, seed).to_replay(
            [{"seat": s, "name": f"p{s}"} for s in range(players)]
        )
        assert replay["game"] == LONG.name and len(replay["placement"]) == players
        for rnd in replay["rounds"]:
            dealt = [card for hand in rnd["hands"] if hand for card in hand]
            assert all(1 <= card <= 18 for card in dealt)
            high_cards += sum(card > 15 for card in dealt)
            assert rnd["penalty"] == LONG.penalty(rnd["card"], [1] if rnd["doubled"] else []).points
            for seat in rnd["eliminated"]:
                assert rnd["scores"][seat] > 7
            before = [s for s in range(players) if rnd["scores"][s] > 7]
            assert set(rnd["eliminated"]) <= set(before)
    assert high_cards > 0, "the ranks 16..18 of the longer deck were never dealt"


def test_cucumbers_play_writes_replays_of_the_variant_that_the_renderer_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "replays"
    args = ["play", "builtin:random", "builtin:heuristic", "builtin:search", "--game", LONG.name]
    args += ["--games", "2", "--seed", "5", "--sandbox", "none", "--replays", str(folder)]
    assert cucumbers([*args, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == LONG.name and summary["games"] == 2
    files = sorted(folder.glob("game-*.json"))
    assert len(files) == 2
    replay = load_replay(files[0])
    assert replay["game"] == LONG.name
    text = render_replay(replay)
    assert text.startswith(f"{LONG.title} · seed {replay['seed']}")
    assert "cucumbers" in text and "dealer" not in text
    # The command line's renderer draws it the same way.
    assert cucumbers(["replay", str(files[0]), "--no-color"]) == 0
    assert capsys.readouterr().out.rstrip("\n") == text.rstrip("\n")
    # The offline viewer page carries the live registry's labels, so it knows the variant.
    page = replay_page(replay)
    assert f"<title>{LONG.title} replay" in page and f'"{LONG.name}": {{' in page
