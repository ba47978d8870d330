"""The replay validator: hand-made games pass; every single rule broken is reported, and
reported where it happened."""

from __future__ import annotations

import copy
import functools
import random
from collections.abc import Callable
from typing import Any

import pytest

from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS
from cucumbers.validator import (
    ReplayInvalid,
    assert_valid,
    check_replay,
    concombre_hand_size,
)
from tests.sdk.replay_fixtures import (
    HAND_MADE,
    Replay,
    capped_duel,
    clone,
    concombre_half,
    concombre_two_faults,
    five_cucumbers_duel,
    five_cucumbers_fault,
    random_replay,
)

Mutation = Callable[[Replay], object]


@pytest.mark.parametrize("name", sorted(HAND_MADE))
def test_it_accepts_the_hand_made_games(name: str) -> None:
    assert check_replay(HAND_MADE[name]()) == []


def random_games(count: int) -> list[Replay]:
    games = []
    for seed in range(count):
        game, top = ("concombre", 7) if seed % 2 else ("five-cucumbers", 6)
        players = 2 + seed % (top - 1)
        games.append(random_replay(seed, game, players, fault_rate=0.01 * (seed % 3)))
    return games


def test_it_accepts_random_games_of_both_kinds_with_faults() -> None:
    games = random_games(300)
    assert {g["game"] for g in games} == {"concombre", "five-cucumbers"}
    assert sum(len(g["faults"]) for g in games) > 20
    assert any(g["rounds"][-1]["half"] or any(r["half"] for r in g["rounds"]) for g in games)
    for game in games:
        assert check_replay(game) == [], (game["game"], game["seed"])


def test_assert_valid_raises_with_every_problem() -> None:
    replay = five_cucumbers_duel()
    replay["seed"] = True
    replay["capped"] = None
    with pytest.raises(ReplayInvalid) as caught:
        assert_valid(replay)
    assert len(caught.value.problems) == 2
    assert "seed must be an integer, got boolean true" in str(caught.value)
    assert "capped must be true or false, got null" in str(caught.value)
    assert_valid(five_cucumbers_duel())


@pytest.mark.parametrize(
    ("previous", "active", "available", "size"),
    [
        (9, 2, 51, 9),  # the previous penalty card's rank
        (12, 4, 51, 12),  # 48 cards fit in 51
        (13, 4, 51, 7),  # 52 do not: 7 each instead
        (14, 3, 42, 14),  # exactly fits
        (9, 7, 49, 7),
        (9, 7, 48, 6),  # not even 7 fit: available // active
        (14, 7, 45, 6),
    ],
)
def test_concombre_hand_size_follows_the_fallbacks(
    previous: int, active: int, available: int, size: int
) -> None:
    assert concombre_hand_size(previous, active, available) == size


def test_its_penalties_agree_with_the_game_rules_module() -> None:
    # The validator restates the rules on purpose; this keeps the two statements in step.
    for card in FIVE_CUCUMBERS.ranks:
        for other in {1, card}:  # seat 1 plays other, then seat 0 takes the trick with card
            replay = five_cucumbers_duel()
            expected = FIVE_CUCUMBERS.penalty(card, [other, card])
            last = rnd(replay, 2)
            last["tricks"][-1]["plays"] = [{"seat": 1, "card": other}, {"seat": 0, "card": card}]
            last["penalty"], last["doubled"], last["card"] = expected.points, expected.doubled, card
            found = [p for p in check_replay(replay) if "penalty" in p or "doubled" in p]
            assert found == [], (card, other)
    assert CONCOMBRE.penalty(13, [13, 2]).points == 13


# -- one mutation, one problem --------------------------------------------------------------


def rnd(replay: Replay, number: int) -> dict[str, Any]:
    return replay["rounds"][number - 1]


def play(replay: Replay, number: int, t: int, i: int) -> dict[str, Any]:
    return rnd(replay, number)["tricks"][t - 1]["plays"][i]


def set_(path: str, value: object) -> Mutation:
    """A mutation setting the value at ``path``: keys and indexes separated by dots."""

    def mutate(replay: Replay) -> None:
        *parents, last = path.split(".")
        node: Any = replay
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return mutate


def swap_cards(number: int, a: tuple[int, int], b: tuple[int, int]) -> Mutation:
    """Swap the cards of two plays (trick, index) of one round, keeping every hand whole."""

    def mutate(replay: Replay) -> None:
        pa, pb = play(replay, number, *a), play(replay, number, *b)
        pa["card"], pb["card"] = pb["card"], pa["card"]

    return mutate


def rename(number: int, seat: int, old: int, new: int) -> Mutation:
    """Turn ``seat``'s card ``old`` into ``new`` in round ``number``: hand and play alike."""

    def mutate(replay: Replay) -> None:
        hand = rnd(replay, number)["hands"][seat]
        hand[hand.index(old)] = new
        for trick in rnd(replay, number)["tricks"]:
            for p in trick["plays"]:
                if p["seat"] == seat and p["card"] == old:
                    p["card"] = new
                    return

    return mutate


def delete(path: str) -> Mutation:
    *parents, last = path.split(".")

    def mutate(replay: Replay) -> None:
        node: Any = replay
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        del node[int(last) if isinstance(node, list) else last]

    return mutate


def extra_round(replay: Replay) -> None:
    again = clone(rnd(replay, 2))
    again["number"] = 3
    replay["rounds"].append(again)


def reverse_faults(replay: Replay) -> None:
    replay["faults"].reverse()


DUEL, HALF, FAULT, TWO = "duel", "half", "fault", "two"
FIXTURES = {
    DUEL: five_cucumbers_duel,
    HALF: concombre_half,
    FAULT: five_cucumbers_fault,
    TWO: concombre_two_faults,
}

MUTATIONS: list[tuple[str, str, Mutation, str]] = [
    # (test id, fixture, mutation, a text the problems must contain)
    ("illegal card", DUEL, swap_cards(2, (4, 1), (6, 1)),
     "round 2 trick 6: seat 1 played 10, illegal: below the high card 11 and not its lowest 1"),
    ("card not in hand", DUEL, set_("rounds.0.tricks.6.plays.1.card", 14),
     "round 1 trick 7: seat 1 played 14, which is not in its hand [15]"),
    ("wrong winner on a tie", DUEL, set_("rounds.0.tricks.0.winner", 0),
     "round 1 trick 1: winner is 0, expected 1 (highest card 9, ties to the last played)"),
    ("wrong trick leader", DUEL, set_("rounds.0.tricks.2.leader", 1),
     "round 1 trick 3: leader is 1, expected 0 (the last trick's winner)"),
    ("seats out of order", FAULT, lambda r: r["rounds"][0]["tricks"][0]["plays"].reverse(),
     "the order of play is [2, 1, 0], expected [0, 1, 2] (clockwise from the leader)"),
    ("missing trick", DUEL, delete("rounds.0.tricks.6"),
     "round 1: the number of tricks is 6, expected 7"),
    ("wrong loser", DUEL, set_("rounds.0.loser", 0),
     "round 1: loser is 0, expected 1 (the last trick's winner)"),
    ("wrong penalty card", DUEL, set_("rounds.0.card", 12), "round 1: card is 12, expected 15"),
    ("wrong penalty", DUEL, set_("rounds.0.penalty", 4), "round 1: penalty is 4, expected 5"),
    ("missing doubling", DUEL, set_("rounds.1.penalty", 4),
     "round 2: penalty is 4, expected 8 (doubled: a 1 was played in the last trick)"),
    ("doubled flag missing", DUEL, set_("rounds.1.doubled", False),
     "round 2: doubled is false, expected true"),
    ("doubled in concombre", HALF, set_("rounds.0.doubled", True),
     "round 1: doubled is true, expected false"),
    ("wrong score", DUEL, set_("rounds.0.scores", [0, 6]),
     "round 1: seat 1's score is 6, expected 5"),
    ("exactly 5 is safe", DUEL, set_("rounds.0.eliminated", [1]),
     "round 1: eliminated is [1], expected []"),
    ("elimination missing", DUEL, set_("rounds.1.eliminated", []),
     "round 2: eliminated is [], expected [0]"),
    ("half-cucumber missing", HALF, set_("rounds.1.half", []), "round 2: half is [], expected [0]"),
    ("no half-cucumber reset", HALF, set_("rounds.1.scores", [21, 0]),
     "round 2: seat 0's score is 21, expected 12"),
    ("second 21 not eliminated", HALF, set_("rounds.2.eliminated", []),
     "round 3: eliminated is [], expected [0]"),
    ("disqualified seat eliminated", FAULT, set_("rounds.0.eliminated", [1]),
     "round 1: eliminated is [1], expected [] (disqualification takes precedence)"),
    ("wrong placement", DUEL, set_("placement", [0, 1]), "placement is [0, 1], expected [1, 0]"),
    ("disqualified ranked by fault order", TWO, set_("placement", [0, 1, 2]),
     "placement is [0, 1, 2], expected [0, 2, 1]"),
    ("capped without the cap", DUEL, set_("capped", True), "capped is true, expected false"),
    ("extra round", DUEL, extra_round, "round 3: the game was over after round 2"),
    ("missing round", DUEL, delete("rounds.1"), "the game stops after round 1 with seats [0, 1]"),
    ("wrong round number", DUEL, set_("rounds.1.number", 3), "round 2: number is 3, expected 2"),
    ("wrong first leader", DUEL, set_("rounds.0.leader", 1),
     "round 1: leader is 1, expected 0 (seat 0 leads round 1)"),
    ("previous loser leads", DUEL, set_("rounds.1.leader", 0),
     "round 2: leader is 0, expected 1 (the previous loser)"),
    ("leader skips the disqualified loser", FAULT, set_("rounds.1.leader", 0),
     "round 2: leader is 0, expected 2 (next active after the loser)"),
    ("concombre first dealer", HALF, set_("rounds.0.dealer", 0),
     "round 1: dealer is 0, expected 1"),
    ("concombre dealer rotation", TWO, set_("rounds.1.dealer", 2),
     "round 2: dealer is 2, expected 0"),
    ("concombre leader after dealer", TWO, set_("rounds.1.leader", 1),
     "round 2: leader is 1, expected 2 (the next active seat after the dealer)"),
    ("dealer in five cucumbers", DUEL, set_("rounds.0.dealer", 1),
     "round 1: dealer is 1, expected null"),
    ("hand_size not the penalty card", HALF, set_("rounds.1.hand_size", 7),
     "round 2: hand_size is 7, expected 9"),
    ("hand dealt short", HALF, lambda r: r["rounds"][1]["hands"][1].pop(),
     "round 2: seat 1's hand size is 8, expected 9"),
    ("card conservation broken", DUEL,
     lambda r: [rename(1, seat, c, 9)(r) for seat, c in ((0, 10), (0, 12), (1, 11))],
     "round 1: the hands hold 5 cards of rank 9, the deck only 4"),
    ("penalty cards lie out of the deck", HALF,
     lambda r: [rename(3, 0, c, 12)(r) for c in (9, 10, 11)],
     "round 3: the hands hold 4 cards of rank 12, the deck only 3 (the others lie in front"),
    ("disqualified seat dealt a hand", FAULT, set_("rounds.1.hands.1", [1, 2, 3, 4, 5, 6, 7]),
     "round 2: seat 1 is out of the game but has a hand"),
    ("active seat without a hand", FAULT, set_("rounds.1.hands.2", None),
     "round 2: seat 2 is in play but has no hand (null)"),
    ("auto flag missing", FAULT, delete("rounds.0.tricks.5.plays.1.auto"),
     "round 1 trick 6: seat 1 has faulted, so its play must be marked auto"),
    ("auto before the fault", FAULT, set_("rounds.0.tricks.3.plays.1.auto", True),
     "round 1 trick 4: seat 1's play is marked auto but it has not faulted"),
    ("auto play not the lowest", FAULT, swap_cards(1, (5, 0), (6, 1)),
     "round 1 trick 5: seat 1's auto play must be its lowest card 6, got 8"),
    ("fault without auto plays", DUEL, set_("faults", [
        {"seat": 0, "round": 2, "trick": 6, "kind": "crash", "detail": "x"}]),
     "round 2 trick 6: seat 0 has faulted, so its play must be marked auto"),
    ("faulted seat plays on", FAULT, set_("faults.0.round", 2),
     "round 2: seat 1 faulted in this round but is not in play"),
    ("two faults for a seat", TWO, set_("faults.1.seat", 1),
     "faults[1]: seat 1 already faulted in faults[0]"),
    ("fault in no round", TWO, set_("faults.1.round", 9), "faults[1]: round 9 does not exist"),
    ("fault in no trick", TWO, set_("faults.1.trick", 7), "faults[1]: round 2 has no trick 7"),
    ("faults out of order", TWO, reverse_faults, "faults must be in order"),
    ("unknown fault kind", TWO, set_("faults.0.kind", "oops"), "faults[0]: kind must be one of"),
    ("fault detail too long", TWO, set_("faults.0.detail", "x" * 501),
     "faults[0]: detail must be a string of at most 500 characters"),
    ("bool seed", DUEL, set_("seed", True), "seed must be an integer, got boolean true"),
    ("bool card", DUEL, set_("rounds.0.tricks.0.plays.0.card", True),
     "round 1 trick 1 play 1: card must be a five-cucumbers card 1..15, got boolean true"),
    ("bool seat in hand", DUEL, set_("rounds.0.hands.0.0", False),
     "round 1: hands[0][0] must be a five-cucumbers card 1..15, got boolean false"),
    ("bool penalty", DUEL, set_("rounds.0.penalty", True),
     "round 1: penalty must be a non-negative integer, got boolean true"),
    ("bool score", DUEL, set_("rounds.0.scores.1", True), "round 1: scores must be a list of 2"),
    ("string auto", FAULT, set_("rounds.0.tricks.4.plays.0.auto", "yes"),
     'round 1 trick 5 play 1: auto must be true or false, got string "yes"'),
    ("card off the deck", HALF, set_("rounds.0.hands.0.0", 1),
     "round 1: hands[0][0] must be a concombre card 2..14, got integer 1"),
    ("seat off the table", DUEL, set_("rounds.0.loser", 2), "round 1: loser must be a seat 0..1"),
    ("missing key", DUEL, delete("rounds.0.half"), "round 1: missing keys: half"),
    ("too many players", DUEL, lambda r: r["players"].extend(
        {"seat": s, "name": "x"} for s in range(2, 7)),
     "players: five-cucumbers is played by 2 to 6 players, got 7"),
    ("player seat", DUEL, set_("players.1.seat", 0), "players[1] must be an object with seat 1"),
    ("unknown game", DUEL, set_("game", "chess"), 'game is string "chess", expected one of'),
    ("wrong format", DUEL, set_("format", "cucumbers-replay/2"),
     'format is string "cucumbers-replay/2", expected "cucumbers-replay/1"'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("fixture", "mutation", "expected"),
    [pytest.param(f, m, e, id=name) for name, f, m, e in MUTATIONS],
)
def test_it_reports_each_broken_rule(fixture: str, mutation: Mutation, expected: str) -> None:
    replay = FIXTURES[fixture]()
    mutation(replay)
    problems = check_replay(replay)
    assert any(expected in p for p in problems), problems


def test_a_capped_game_ranks_the_active_seats_by_fewer_points() -> None:
    capped = capped_duel()
    assert len(capped["rounds"]) == 1000
    assert check_replay(capped) == []
    capped["placement"] = [0, 1]
    assert check_replay(capped) == [
        "game: placement is [0, 1], expected [1, 0] (active [1, 0], then eliminated [], then"
        " disqualified [], latest first)"
    ]


def test_a_capped_game_stops_at_the_cap_and_says_so() -> None:
    longer = capped_duel()
    longer["rounds"].append(clone(longer["rounds"][-2]))
    longer["rounds"][-1]["number"] = 1001
    assert check_replay(longer) == ["round 1001: the game was over after round 1000 (round cap)"]
    unflagged = capped_duel()
    unflagged["capped"] = False
    assert check_replay(unflagged) == ["game: capped is false, expected true"]


def test_a_score_gone_wrong_is_reported_once_not_in_every_later_round() -> None:
    # As an engine that miscounted once would record it: later rounds count on from there.
    replay = five_cucumbers_duel()
    rnd(replay, 1)["scores"] = [0, 4]
    rnd(replay, 2)["scores"] = [8, 4]
    assert check_replay(replay) == ["round 1: seat 1's score is 4, expected 5"]


def test_any_changed_card_in_any_play_is_caught() -> None:
    rng = random.Random(5)
    for game in random_games(60):
        plays = [p for r in game["rounds"] for t in r["tricks"] for p in t["plays"]]
        target = rng.choice(plays)
        low = 2 if game["game"] == "concombre" else 1
        target["card"] = rng.choice([c for c in range(low, 15) if c != target["card"]])
        assert check_replay(game), (game["seed"], target)


JUNK: list[object] = [None, True, False, -1, 0, 3, 99, 1.5, "x", "", [], {}, [1, None], {"a": 1}]


def leaves(node: object, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [path] + [q for k, v in node.items() for q in leaves(v, (*path, k))]
    if isinstance(node, list):
        return [path] + [q for i, v in enumerate(node) for q in leaves(v, (*path, i))]
    return [path]


def test_it_never_raises_on_junk_anywhere() -> None:
    rng = random.Random(7)
    # The hand-made games have no seed; these do, so the deal is re-derived from junk too.
    seeded = [random_replay(seed, game, 3, fault_rate=0.02) for seed in range(6)
              for game in ("five-cucumbers", "concombre")]  # fmt: skip
    replays = [*HAND_MADE.values(), *(functools.partial(clone, r) for r in seeded)]
    for _ in range(3000):
        replay = clone(rng.choice(replays)())
        path = rng.choice(leaves(replay)[1:])
        parent: Any = replay
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, dict) and rng.random() < 0.2:
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(JUNK))
        problems = check_replay(replay)
        assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)


@pytest.mark.parametrize("value", [None, [], "replay", 7])
def test_it_reports_a_replay_that_is_not_an_object(value: Any) -> None:
    (problem,) = check_replay(value)
    assert problem.startswith("a replay is a JSON object, got")
