"""``cucumbers review``: every decision's regret, estimated from the seat's own view."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from cucumbers.bots.heuristic import HeuristicBot, quick_card
from cucumbers.cli import main
from cucumbers.engine import GameState
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS, GameRules
from cucumbers.match import play_match
from cucumbers.replay import save_replay
from cucumbers.review import review_game, review_json
from cucumbers.runners.base import BotSpec, Limits
from cucumbers.runners.inprocess import InProcessRunner
from cucumbers.view import View
from tests.e2e.replays import FAULT_ROUND, FAULT_SEAT, FAULT_TRICK, five_cucumbers_game

Replay = dict[str, Any]


class KeepsTheTop:
    """Plays the heuristic's core rules, except that with two cards left, one of them the
    game's top card (15, or Concombre's ace), it plays the other: it keeps the top card for
    the last trick, which it then almost surely wins. It notes where it did."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.blunders: set[tuple[int, int]] = set()

    def __call__(self, view: View) -> int:
        hand = view.hand
        if len(hand) == 2 and hand[1] == self.top and hand[0] < self.top:
            self.blunders.add((view.round_number, view.trick_number))
            return hand[0]
        return quick_card(list(hand), view.high or 0, len(view.active) - len(view.trick) - 1)


def blundered_games(rules: GameRules, count: int) -> list[tuple[Replay, set[tuple[int, int]]]]:
    """The first ``count`` games (seeds 1, 2, ...) in which seat 0, a :class:`KeepsTheTop`
    among three heuristic bots, blundered, with where it did."""
    found = []
    for seed in range(1, 500):
        blunderer = KeepsTheTop(rules.ranks[-1])
        state = GameState(rules, 4, seed)
        state.run([blunderer] + [HeuristicBot().play for _ in range(3)])
        if blunderer.blunders:
            players = [{"seat": s, "name": f"seat{s}"} for s in range(4)]
            found.append((state.to_replay(players), blunderer.blunders))
            if len(found) == count:
                return found
    raise AssertionError("no game with a blunder")


@pytest.mark.parametrize(
    ("rules", "clear"),
    # Clearly above zero: above what the heuristic's own moves ever cost in these games
    # (at most 1.2 cucumbers, 4.3 points), far below what keeping the top card does (5, 14).
    [(FIVE_CUCUMBERS, 2.0), (CONCOMBRE, 8.0)],
    ids=["five-cucumbers", "concombre"],
)
def test_a_bot_that_keeps_its_top_card_for_the_last_trick_is_caught_at_exactly_those_decisions(
    rules: GameRules, clear: float
) -> None:
    for replay, blunders in blundered_games(rules, 3):
        review = review_game(replay, 0, deals=300)
        caught = {(d.round, d.trick) for d in review.decisions if d.regret >= clear}
        assert caught == blunders
        for d in review.decisions:
            if (d.round, d.trick) in blunders:
                assert d.played < rules.ranks[-1] and d.best == rules.ranks[-1]
                assert d.estimate.interval[0] >= clear, "the interval is clear of zero too"
        assert {(d.round, d.trick) for d in review.mistakes()[: len(blunders)]} == blunders


def played_games(rules: GameRules, games: int) -> list[tuple[Replay, tuple[int, ...]]]:
    bots = ("search", "heuristic", "highest", "random")
    specs = [BotSpec(f"builtin:{bot}", bot) for bot in bots]
    outcomes = play_match(
        rules, specs, InProcessRunner(Limits()), seed=7, game_numbers=range(1, games + 1)
    )
    return [(o.replay, o.bots) for o in outcomes if o.replay is not None]


def test_search_reviews_near_zero_and_random_clearly_higher() -> None:
    regrets: dict[int, list[float]] = {0: [], 3: []}  # search, random
    for replay, bots in played_games(FIVE_CUCUMBERS, 3):
        for seat, bot in enumerate(bots):
            if bot in regrets:
                regrets[bot] += [d.regret for d in review_game(replay, seat, deals=200).decisions]
    search, random_ = statistics.fmean(regrets[0]), statistics.fmean(regrets[3])
    assert len(regrets[0]) >= 30 and len(regrets[3]) >= 10
    assert search < 0.06, f"search's own moves review at {search:.3f} a decision"
    assert random_ > 0.15 and random_ > 4 * search, (search, random_)


def test_the_same_seed_gives_the_same_review_and_another_seed_other_deals() -> None:
    replay = five_cucumbers_game(fault=False)
    first = review_json(replay, 1, seed=3, deals=60)
    assert review_json(replay, 1, seed=3, deals=60) == first
    other = review_json(replay, 1, seed=4, deals=60)
    assert [d["cards"] for d in other["decisions"]] != [d["cards"] for d in first["decisions"]]
    assert {(d["round"], d["trick"]) for d in other["decisions"]} == {
        (d["round"], d["trick"]) for d in first["decisions"]
    }


def test_every_card_is_played_on_the_same_deals() -> None:
    # With common random numbers, a regret's interval is far narrower than the two cards'
    # own intervals side by side would allow.
    replay = five_cucumbers_game(fault=False)
    review = review_game(replay, 1, deals=400)
    narrower = 0
    for d in review.decisions:
        cost = {c.card: c for c in d.estimate.cards}
        played, best = cost[d.played], cost[d.best]
        if d.played != d.best:
            unpaired = sum(c.interval[1] - c.interval[0] for c in (played, best))
            narrower += (d.estimate.interval[1] - d.estimate.interval[0]) < unpaired
    assert narrower >= 3


def test_a_faulted_seat_is_reviewed_up_to_its_fault() -> None:
    replay = five_cucumbers_game()
    review = review_game(replay, FAULT_SEAT, deals=20)
    assert review.faulted and review.decisions
    # Its fault's move and the engine's auto plays after it are not its decisions, and it is
    # disqualified at the end of that round.
    assert all((d.round, d.trick) < (FAULT_ROUND, FAULT_TRICK) for d in review.decisions)


def test_forced_moves_are_not_decisions() -> None:
    replay = five_cucumbers_game(fault=False)
    review = review_game(replay, 0, deals=20)
    assert all(len(d.view.legal) > 1 for d in review.decisions)
    plays = sum(
        1
        for rnd in replay["rounds"]
        for trick in rnd["tricks"]
        for play in trick["plays"]
        if play["seat"] == 0
    )
    assert len(review.decisions) + review.forced == plays


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def replay_file(tmp_path: Path) -> Path:
    return save_replay(five_cucumbers_game(fault=False), tmp_path / "game.json.gz")


def test_json_holds_every_decision_biggest_mistake_first(
    replay_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_cli(
        ["review", str(replay_file), "--seat", "0", "--json", "--deals", "100"], capsys
    )
    assert status == 0
    data = json.loads(out)
    assert data["format"] == "cucumbers-review/1" and data["unit"] == "cucumbers"
    decisions = data["decisions"]
    assert decisions and len(decisions) == data["summary"]["decisions"]
    for d in decisions:
        assert {"round", "trick", "played", "best", "regret", "interval"} <= d.keys()
        low, high = d["interval"]
        assert 0 <= low <= d["regret"] <= high
        assert {c["card"] for c in d["cards"]} >= {d["played"], d["best"]}
    regrets = [d["regret"] for d in decisions]
    assert regrets == sorted(regrets, reverse=True)


def test_the_text_lists_the_biggest_mistakes_and_bad_input_is_a_clean_error(
    replay_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run_cli(
        ["review", str(replay_file), "--seat", "0", "--deals", "100", "--top", "3"], capsys
    )
    assert status == 0
    assert "biggest mistakes first" in out and "more: --top 0 lists them all" in out
    rows = [line for line in out.splitlines() if line.strip() and line.split()[0].isdigit()]
    assert len(rows) == 3
    status, _, err = run_cli(["review", str(replay_file), "--seat", "9"], capsys)
    assert status == 2 and "no seat 9" in err
    with pytest.raises(SystemExit):
        main(["review", str(replay_file), "--seat", "0", "--deals", "1"])


def test_a_replay_from_another_engine_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = five_cucumbers_game(fault=False)
    replay["seed"] += 1  # the deals no longer follow from the seed
    path = save_replay(replay, tmp_path / "edited.json")
    status, _, err = run_cli(["review", str(path), "--seat", "0"], capsys)
    assert status == 2 and "does not allow" in err
