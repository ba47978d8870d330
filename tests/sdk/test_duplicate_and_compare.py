"""``cucumbers play --duplicate`` and ``cucumbers compare``: the same deals for every seat,
and two versions measured on the same deals against the same opponents."""

from __future__ import annotations

import json
from collections import defaultdict
from importlib import resources
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.compare import CompareConfig, Verdict, compare
from cucumbers.games import rules_for
from cucumbers.replay import load_replay
from cucumbers.runners.base import BotSpec

STARTER = resources.files("cucumbers").joinpath("templates/starter.py").read_text("utf-8")
LOWEST = "def play(view):\n    return view.legal[0]\n"


def test_play_duplicate_deals_every_deal_to_every_bot_in_every_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = ["builtin:random", "builtin:heuristic", "builtin:lowest"]
    args = ["play", *bots, "--games", "5", "--seed", "8", "--duplicate", "--sandbox", "none"]
    assert main([*args, "--replays", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "6 games" in out  # 5 rounded up to two rotations of three seats
    assert "duplicate deals: 2 deals, each played 3 times" in out
    assert "5 games asked, rounded up" in out
    seats_by_deal: dict[int, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    hands_by_deal: dict[int, list[object]] = defaultdict(list)
    for path in sorted(tmp_path.glob("game-*.json")):
        replay = load_replay(path)
        for player in replay["players"]:
            seats_by_deal[replay["seed"]][player["name"]].add(player["seat"])
        hands_by_deal[replay["seed"]].append(replay["rounds"][0]["hands"])
    assert len(seats_by_deal) == 2
    for seats in seats_by_deal.values():
        assert {name: sorted(s) for name, s in seats.items()} == {b: [0, 1, 2] for b in bots}
    for hands in hands_by_deal.values():  # the same cards at every seat each time
        assert hands[0] == hands[1] == hands[2]


def test_play_duplicate_json_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["play", "builtin:random", "builtin:lowest", "--games", "4", "--seed", "2"]
    assert main([*args, "--duplicate", "--sandbox", "none", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["duplicate"] is True and document["games"] == 4


def specs(tmp_path: Path, name: str, text: str) -> BotSpec:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return BotSpec.parse(str(path))


def test_compare_finds_the_starter_better_than_always_lowest(tmp_path: Path) -> None:
    config = CompareConfig(
        rules_for("five-cucumbers"),
        new=specs(tmp_path, "starter", STARTER),
        old=specs(tmp_path, "lowest", LOWEST),
        opponents=(BotSpec.parse("builtin:random"), BotSpec.parse("builtin:heuristic")),
        seed=5,
        sandbox="none",
    )
    result = compare(config)
    assert result.verdict is Verdict.NEW_BETTER
    assert result.difference > result.ci95 > 0
    assert result.difference == pytest.approx(result.old_mean - result.new_mean)
    assert result.deals == 20  # significant at the first look: it stops there
    swapped = compare(CompareConfig(**{**_fields(config), "new": config.old, "old": config.new}))
    assert swapped.verdict is Verdict.OLD_BETTER
    assert swapped.difference == pytest.approx(-result.difference)  # the same deals


def _fields(config: CompareConfig) -> dict[str, object]:
    return {name: getattr(config, name) for name in CompareConfig.__dataclass_fields__}


def test_compare_of_a_bot_with_itself_finds_no_difference_and_stops_at_the_cap(
    tmp_path: Path,
) -> None:
    config = CompareConfig(
        rules_for("concombre"),
        new=specs(tmp_path, "a", STARTER),
        old=specs(tmp_path, "b", STARTER),
        opponents=(BotSpec.parse("builtin:random"),),
        seed=3,
        sandbox="none",
        max_deals=30,
    )
    result = compare(config)
    assert result.verdict is Verdict.NO_DIFFERENCE
    assert result.deals == 30 and result.difference == 0


def test_the_compare_command_prints_the_interval_and_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "new.py").write_text(STARTER)
    (tmp_path / "old.py").write_text(LOWEST)
    args = ["compare", str(tmp_path / "new.py"), str(tmp_path / "old.py"), "--seed", "1"]
    assert main([*args, "--sandbox", "none", "--opponents", "builtin:random"]) == 0
    out = capsys.readouterr().out
    assert "(95% interval)" in out and "verdict: NEW is better" in out
    assert "duplicate deals" in out
    (tmp_path / "broken.py").write_text("def play(view)\n")
    assert main(["compare", str(tmp_path / "broken.py"), str(tmp_path / "old.py")]) == 2
    assert "broken.py is not a usable bot" in capsys.readouterr().err
