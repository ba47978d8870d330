"""The ``cucumbers`` command, run as a user runs it (a subprocess) and through ``main``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cucumbers.cli import main
from cucumbers.move_facts import game_record
from cucumbers.replay import dumps_replay, load_replay, save_replay
from cucumbers.validator import check_replay


def cucumbers(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cucumbers", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_new_writes_a_starter_bot_that_validates(tmp_path: Path) -> None:
    result = cucumbers("new", "mybot", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    bot = tmp_path / "mybot.py"
    assert "class MyBot(Bot)" in bot.read_text()
    checked = cucumbers("validate", "mybot.py", cwd=tmp_path)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("OK: mybot.py played 3 five-cucumbers games")


def test_new_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "mybot.py").write_text("# mine\n")
    result = cucumbers("new", "mybot.py", cwd=tmp_path)
    assert result.returncode == 2
    assert "already exists" in result.stderr
    assert (tmp_path / "mybot.py").read_text() == "# mine\n"


def test_play_json_is_exactly_one_object_with_the_contract_keys(tmp_path: Path) -> None:
    noisy = tmp_path / "noisy.py"
    noisy.write_text("def play(view):\n    print('thinking out loud')\n    return view.legal[0]\n")
    result = cucumbers(
        "play",
        str(noisy),
        "builtin:random",
        "builtin:lowest",
        "--games",
        "6",
        "--seed",
        "9",
        "--json",
        "--sandbox",
        "none",
    )
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)  # the bot's prints must not reach stdout
    assert {"game", "games", "seed", "seconds", "bots"} <= document.keys()
    assert document["game"] == "five-cucumbers"
    assert document["games"] == 6 and document["seed"] == 9
    assert [b["bot"] for b in document["bots"]] == ["noisy", "builtin:random", "builtin:lowest"]
    for entry in document["bots"]:
        assert {"bot", "games", "wins", "mean_place", "faults"} <= entry.keys()
        assert entry["games"] == 6 and entry["faults"] == 0
        assert 1 <= entry["mean_place"] <= 3
    assert sum(b["wins"] for b in document["bots"]) == 6


def test_play_reports_faults_by_kind(tmp_path: Path) -> None:
    cheat = tmp_path / "cheat.py"
    cheat.write_text("def play(view):\n    return True\n")
    result = cucumbers(
        "play", str(cheat), "builtin:random", "--games", "3", "--seed", "1", "--json"
    )
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout)["bots"][0]
    assert entry["faults"] == 3
    assert entry["faults_by_kind"] == {"illegal_move": 3}
    assert entry["wins"] == 0


def test_play_says_why_each_bot_faulted(tmp_path: Path) -> None:
    cheat = tmp_path / "cheat.py"
    cheat.write_text("def play(view):\n    return True\n")
    result = cucumbers("play", str(cheat), "builtin:random", "--games", "3", "--seed", "1")
    assert result.returncode == 0, result.stderr
    reasons = [line for line in result.stdout.splitlines() if "first fault" in line]
    assert len(reasons) == 1  # one line per faulting bot, not per fault
    assert reasons[0].startswith(f"{cheat}: first fault in game 1, round 1")
    assert "illegal_move: " in reasons[0] and reasons[0].split("illegal_move: ")[1]


def play_json(*args: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main(["play", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_workers_give_identical_results(capsys: pytest.CaptureFixture[str]) -> None:
    bots = ["builtin:random", "builtin:heuristic", "builtin:lowest", "builtin:highest"]
    common = [*bots, "--games", "40", "--seed", "5", "--sandbox", "none"]
    one = play_json(*common, capsys=capsys)
    two = play_json(*common, "--workers", "2", capsys=capsys)
    strip = ("seconds", "workers")
    for document in (one, two):
        for key in strip:
            document.pop(key)
        for entry in document["bots"]:  # type: ignore[attr-defined]
            entry.pop("mean_move_ms")
    assert one == two


def test_same_seed_gives_byte_identical_replays_but_for_the_moves_times(tmp_path: Path) -> None:
    for run in ("a", "b"):
        result = cucumbers(
            "play",
            "builtin:random",
            "builtin:heuristic",
            "builtin:lowest",
            "--game",
            "concombre",
            "--games",
            "3",
            "--seed",
            "77",
            "--sandbox",
            "none",
            "--replays",
            str(tmp_path / run),
        )
        assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == ["game-00001.json", "game-00002.json", "game-00003.json"]
    for name in names:
        first, second = (load_replay(tmp_path / run / name) for run in ("a", "b"))
        assert dumps_replay(game_record(first)) == dumps_replay(game_record(second))
        assert first["revision"] == 2 and check_replay(first) == []


def test_play_rejects_bad_arguments_clearly(tmp_path: Path) -> None:
    too_many = cucumbers("play", *["builtin:random"] * 7, "--games", "1")
    assert too_many.returncode == 2 and "2 to 6 bots" in too_many.stderr
    missing = cucumbers("play", str(tmp_path / "nope.py"), "builtin:random")
    assert missing.returncode == 2 and "no such bot file" in missing.stderr
    not_python = cucumbers("play", "bot.txt", "builtin:random")
    assert not_python.returncode == 2 and ".py file or builtin:NAME" in not_python.stderr
    bad_time = cucumbers("play", "builtin:random", "builtin:random", "--per-move", "-1")
    assert bad_time.returncode == 2 and "positive number of seconds" in bad_time.stderr
    unknown = cucumbers("play", "builtin:nobody", "builtin:random", "--games", "1")
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "builtin:nobody is not a usable bot" in unknown.stderr


def test_validate_explains_a_faulting_bot(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def play(view):\n    print('about to fail')\n    return 1 / 0\n")
    result = cucumbers("validate", str(bad))
    assert result.returncode == 1
    assert "crash: ZeroDivisionError: division by zero (bad.py, line 3)" in result.stderr
    assert "about to fail" in result.stderr


def test_validate_explains_a_file_that_is_not_a_bot(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def play(view)\n    return 1\n")
    result = cucumbers("validate", str(broken))
    assert result.returncode == 2
    assert "syntax error in broken.py, line 1" in result.stderr


def test_replay_prints_a_game_and_check_replay_finds_the_one_with_a_wrong_penalty(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "replays"
    assert (
        cucumbers(
            "play",
            "builtin:random",
            "builtin:lowest",
            "--games",
            "2",
            "--seed",
            "3",
            "--sandbox",
            "none",
            "--replays",
            str(folder),
        ).returncode
        == 0
    )
    shown = cucumbers("replay", str(folder / "game-00001.json"))
    assert shown.returncode == 0
    assert "Round 1" in shown.stdout or "round 1" in shown.stdout.lower()
    good = cucumbers("check-replay", str(folder))
    assert good.returncode == 0 and "2 of 2 replays valid" in good.stdout

    replay = load_replay(folder / "game-00001.json")
    replay["rounds"][0]["penalty"] += 1
    save_replay(replay, folder / "game-00003.json.gz")
    bad = cucumbers("check-replay", str(folder))
    assert bad.returncode == 1
    assert "game-00003.json.gz" in bad.stdout and "2 of 3 replays valid" in bad.stdout


def test_no_commands_help_shows_a_doubled_percent_sign(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """argparse formats help with %: a literal "95%%" in a description printed as "%%"
    where argparse did not format it (issue 30: compare --help)."""
    import argparse

    from cucumbers.cli import build_parser

    commands = next(
        action
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    assert "compare" in commands.choices
    for name in commands.choices:
        with pytest.raises(SystemExit):
            main([name, "--help"])
        shown = capsys.readouterr().out
        assert "%%" not in shown, name
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert "95%" in capsys.readouterr().out
