"""``python -m arena match``: what the workers run, with the same output and replays as
``cucumbers play``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cucumbers.move_facts import game_record
from cucumbers.replay import iter_replay_files, load_replay
from cucumbers.validator import check_replay
from tests.arena.sandboxkit import hostile

pytestmark = pytest.mark.usefixtures("sandbox")

REPO = Path(__file__).parents[2]
#: Deterministic bots that run in both sandboxes (numpy may be missing outside one).
BOTS = [hostile("class_bot"), "builtin:lowest", "builtin:highest"]
#: Keys whose values depend on the run, not on the games.
TIMING = {"seconds", "mean_move_ms", "sandbox"}


def run_json(command: list[str], replays: Path) -> dict[str, Any]:
    args = [*BOTS, "--games", "3", "--seed", "5", "--json", "--replays", str(replays)]
    result = subprocess.run(
        [sys.executable, "-m", *command, *args], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, "exactly one JSON object on stdout"
    document = json.loads(lines[0])
    assert isinstance(document, dict)
    return document


def without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def test_arena_match_in_docker_prints_what_cucumbers_play_prints(tmp_path: Path) -> None:
    arena = run_json(["arena", "match", "--sandbox", "docker"], tmp_path / "docker")
    local = run_json(["cucumbers", "play", "--sandbox", "process"], tmp_path / "process")
    assert arena["sandbox"] == "docker" and local["sandbox"] == "process"
    assert set(arena) == set(local)
    assert [set(bot) for bot in arena["bots"]] == [set(bot) for bot in local["bots"]]
    assert without_timing(arena) == without_timing(local)  # the same games, the same results
    assert all(bot["faults"] == 0 for bot in arena["bots"])


def test_arena_match_writes_valid_replays_identical_to_the_process_runners(
    tmp_path: Path,
) -> None:
    run_json(["arena", "match"], tmp_path / "docker")  # docker is the default
    run_json(["cucumbers", "play", "--sandbox", "process"], tmp_path / "process")
    files = sorted(iter_replay_files([tmp_path / "docker"]))
    assert [f.name for f in files] == [f"game-0000{n}.json" for n in (1, 2, 3)]
    for path in files:
        replay = load_replay(path)
        assert check_replay(replay) == []
        # The same game, move for move (each move's time is the machine's, not the game's).
        assert game_record(replay) == game_record(load_replay(tmp_path / "process" / path.name))


def test_arena_match_plays_in_the_docker_sandbox_unless_told_otherwise() -> None:
    from arena.__main__ import build_parser

    args = build_parser().parse_args(["match", "builtin:lowest", "builtin:random"])
    assert args.sandbox == "docker"
