"""The replay checker re-derives every round's hands from the replay's seed (issue 39):
genuine replays of both games at every table size pass with their deal verified; a deal a
forger changed while keeping every play legal (a 105-card deck, a card swapped between two
hands, a hand of another seed, another seed) is refused, by round and seat; a replay without
a seed is checked against the rules alone and says that its deal is not verified."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.deal import Deals
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules
from cucumbers.match import play_match
from cucumbers.replay import save_replay
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec
from cucumbers.validator import DealCheck, check_replay, verify_replay
from tests.sdk.enginekit import players, random_game
from tests.sdk.forged_deals import (
    follows_the_rules,
    is_deal_problem,
    swap_between_hands,
    without_seed,
)
from tests.sdk.replay_fixtures import Replay, clone, five_cucumbers_duel, random_replay

GAMES = (FIVE_CUCUMBERS, CONCOMBRE)
BUILTINS = ("builtin:random", "builtin:lowest", "builtin:highest", "builtin:heuristic")


def matches(rules: GameRules, seats: int, games: int) -> list[Replay]:
    """``games`` games of a match of built-in bots, played by the SDK's match loop."""
    specs = [BotSpec(BUILTINS[s % 4], f"{BUILTINS[s % 4]} #{s}") for s in range(seats)]
    outcomes = play_match(
        rules, specs, make_runner("none"), seed=1000 + seats, game_numbers=range(1, games + 1)
    )
    return [outcome.replay for outcome in outcomes if outcome.replay is not None]


@pytest.fixture(scope="module")
def played() -> list[Replay]:
    """Five games of both games at every table size, from the SDK's match loop."""
    return [
        replay
        for rules in GAMES
        for seats in range(rules.min_players, rules.max_players + 1)
        for replay in matches(rules, seats, 5)
    ]


@pytest.fixture(scope="module")
def faulted() -> list[Replay]:
    """Engine games with random faults: disqualified seats are dealt no more cards."""
    return [
        random_game(rules, seats, seed, fault_rate=0.02).to_replay(players(seats))
        for rules in GAMES
        for seats in (2, 4, rules.max_players)
        for seed in range(15)
    ]


def test_every_genuine_replay_passes_with_its_deal_verified(
    played: list[Replay], faulted: list[Replay]
) -> None:
    assert len(played) == 5 * (5 + 6)
    assert {(r["game"], len(r["players"])) for r in played} == {
        (rules.name, n) for rules in GAMES for n in range(rules.min_players, rules.max_players + 1)
    }
    assert sum(bool(r["faults"]) for r in faulted) > 10
    # Concombre's later rounds are dealt from a deck with penalty cards out of it.
    assert any(rnd["hand_size"] != 7 for r in played + faulted for rnd in r["rounds"])
    for replay in played + faulted:
        checked = verify_replay(replay)
        assert checked.problems == (), (replay["game"], replay["seed"], checked.problems[:3])
        assert checked.deal is DealCheck.VERIFIED and checked.deal_verified


def test_a_deal_made_by_rules_f_outside_the_engine_is_verified_too() -> None:
    # The fixtures' own simulation deals with the standard library's sample, as rules.md
    # (f) says: the checker's re-derivation is the rule, not only what the engine does.
    for seed in range(40):
        game, top = ("concombre", 7) if seed % 2 else ("five-cucumbers", 6)
        replay = random_replay(seed, game, 2 + seed % (top - 1), fault_rate=0.02)
        assert verify_replay(replay).deal is DealCheck.VERIFIED, (game, seed)


@pytest.mark.parametrize("game", ["five-cucumbers", "concombre"])
def test_a_deal_from_a_deck_of_seven_cards_a_rank_is_refused_though_every_play_is_legal(
    game: str,
) -> None:
    for seed in range(30):
        seats = 2 + seed % 5
        forged = random_replay(seed, game, seats, copies=7)  # 105 cards in Five Cucumbers
        # What the checker passed before it re-derived the deal: no rank is dealt more
        # often than the deck holds it, and every play follows the rules.
        assert follows_the_rules(forged), seed
        checked = verify_replay(forged)
        assert checked.deal is DealCheck.MISDEALT and not checked.valid
        assert checked.problems and all(is_deal_problem(p) for p in checked.problems)
        assert checked.problems[0].startswith("round 1: seat ")


def test_a_card_swapped_between_two_hands_is_refused_by_round_and_seat(
    played: list[Replay],
) -> None:
    rng = random.Random(39)
    for replay in played:
        found = swap_between_hands(replay, rng)
        assert found is not None, (replay["game"], replay["seed"])
        forged, number, (a, b) = found
        assert follows_the_rules(forged)
        checked = verify_replay(forged)
        assert checked.deal is DealCheck.MISDEALT
        # Only the forged round: the draw of a round does not depend on the cards before.
        assert len(checked.problems) == 2, checked.problems
        first, second = checked.problems
        assert first.startswith(f"round {number}: seat {a}'s hand is [")
        assert second.startswith(f"round {number}: seat {b}'s hand is [")


def test_the_message_names_the_hands_and_the_cards_that_differ(played: list[Replay]) -> None:
    replay = clone(played[0])
    hands = replay["rounds"][0]["hands"]
    dealt = list(hands[0])
    other = next(c for c in range(2, 16) if c not in dealt and c not in hands[1])
    hands[0][-1] = other
    assert check_replay(replay)[0] == (
        f"round 1: seat 0's hand is {sorted(hands[0])}, but the seed deals it {dealt}:"
        f" the replay has {other} instead of {dealt[-1]}"
    )


@pytest.mark.parametrize("rules", GAMES, ids=lambda rules: rules.name)
def test_a_hand_of_another_seeds_deal_is_refused(played: list[Replay], rules: GameRules) -> None:
    replay = clone(next(r for r in played if r["game"] == rules.name and len(r["players"]) == 3))
    dealt = replay["rounds"][0]["hands"][1]
    stranger = Deals(replay["seed"] + 1).deal(rules.deck, 7, 3)[1]
    replay["rounds"][0]["hands"][1] = stranger
    problems = check_replay(replay)
    expected = (
        f"round 1: seat 1's hand is {stranger}, but the seed deals it {dealt}: the replay has"
    )
    assert any(p.startswith(expected) for p in problems), problems


def test_the_seed_changed_with_the_hands_kept_is_refused_in_every_round(
    played: list[Replay],
) -> None:
    for replay in played[::5]:
        forged = clone(replay)
        forged["seed"] += 1
        assert follows_the_rules(forged)
        checked = verify_replay(forged)
        assert checked.deal is DealCheck.MISDEALT
        assert all(is_deal_problem(p) for p in checked.problems)
        named = {int(p.split(":")[0].removeprefix("round ")) for p in checked.problems}
        assert named == set(range(1, len(replay["rounds"]) + 1))


def test_a_replay_without_a_seed_is_checked_by_the_rules_and_says_its_deal_is_unverified(
    played: list[Replay],
) -> None:
    unseeded = without_seed(played[0])
    checked = verify_replay(unseeded)
    assert checked.valid and checked.deal is DealCheck.NO_SEED and not checked.deal_verified
    # Its rules are still checked.
    broken = clone(unseeded)
    broken["rounds"][0]["penalty"] += 1
    checked = verify_replay(broken)
    assert checked.deal is DealCheck.NO_SEED
    assert [p for p in checked.problems if "penalty" in p] == [
        f"round 1: penalty is {broken['rounds'][0]['penalty']},"
        f" expected {broken['rounds'][0]['penalty'] - 1}"
    ]
    # Leaving it out is how a replay says it has none; null is not a seed.
    nulled = dict(played[0], seed=None)
    assert check_replay(nulled) == ["seed must be an integer, got null"]


def test_a_replay_too_broken_to_deal_again_is_never_said_to_be_verified(
    played: list[Replay],
) -> None:
    assert verify_replay([]).deal is DealCheck.UNCHECKED  # type: ignore[arg-type]
    shapeless = clone(played[0])
    shapeless["rounds"][0]["hands"] = "none"
    assert verify_replay(shapeless).deal is DealCheck.UNCHECKED
    longer = clone(played[0])  # a round after the game's end is never dealt again
    longer["rounds"].append(clone(longer["rounds"][-1]))
    checked = verify_replay(longer)
    assert checked.deal is DealCheck.UNCHECKED and not checked.valid


def test_the_hand_made_fixtures_have_no_seed_and_are_checked_by_the_rules_alone() -> None:
    checked = verify_replay(five_cucumbers_duel())
    assert checked.valid and checked.deal is DealCheck.NO_SEED


# -- the command ---------------------------------------------------------------------------


def test_check_replay_passes_a_genuine_replay_refuses_a_forged_deal_and_flags_no_seed(
    played: list[Replay], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    genuine = played[7]
    found = swap_between_hands(genuine, random.Random(1))
    assert found is not None
    forged, number, (a, b) = found
    folder = tmp_path / "replays"
    folder.mkdir()
    save_replay(genuine, folder / "a-genuine.json")
    save_replay(forged, folder / "b-forged.json.gz")
    save_replay(without_seed(genuine), folder / "c-no-seed.json")

    assert main(["check-replay", str(folder / "a-genuine.json")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{folder / 'a-genuine.json'}: ok",
        "1 of 1 replays valid",
    ]

    assert main(["check-replay", str(folder)]) == 1
    lines = capsys.readouterr().out.splitlines()
    hands = {seat: Counter(forged["rounds"][number - 1]["hands"][seat]) for seat in (a, b)}
    dealt = {seat: Counter(genuine["rounds"][number - 1]["hands"][seat]) for seat in (a, b)}
    (given,), (taken,) = (hands[a] - dealt[a]).elements(), (dealt[a] - hands[a]).elements()
    assert lines == [
        f"{folder / 'a-genuine.json'}: ok",
        f"{folder / 'b-forged.json.gz'}: 2 problem(s)",
        f"  - round {number}: seat {a}'s hand is {sorted(hands[a].elements())}, but the seed"
        f" deals it {sorted(dealt[a].elements())}: the replay has {given} instead of {taken}",
        f"  - round {number}: seat {b}'s hand is {sorted(hands[b].elements())}, but the seed"
        f" deals it {sorted(dealt[b].elements())}: the replay has {taken} instead of {given}",
        f"{folder / 'c-no-seed.json'}: ok; its deal is NOT verified: the replay has no seed,"
        " so only the rules were checked",
        "2 of 3 replays valid; 1 without a seed, whose deal is NOT verified",
    ]

    # Quiet: the valid replays are left out, but not the note on the one without a seed.
    assert (
        main(["check-replay", "-q", str(folder / "a-genuine.json"), str(folder / "c-no-seed.json")])
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        f"{folder / 'c-no-seed.json'}: ok; its deal is NOT verified: the replay has no seed,"
        " so only the rules were checked",
        "2 of 2 replays valid; 1 without a seed, whose deal is NOT verified",
    ]
