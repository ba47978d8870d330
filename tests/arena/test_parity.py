"""The Docker runner faults exactly as the process runner does: every misbehaving bot of the
SDK's suite gets the same faults (kind, place and detail) under both."""

from __future__ import annotations

from pathlib import Path

import pytest

from cucumbers.faults import FaultKind
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.match import GameOutcome, play_match
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec, Runner
from tests.arena.sandboxkit import FAST, OPPONENT, assert_nothing_left, docker_runner

pytestmark = pytest.mark.usefixtures("sandbox")

SDK_BOTS = Path(__file__).parents[1] / "sdk" / "misbehaving_bots"
#: Covered elsewhere: start-up timeouts take seconds (``test_hostile_bots``), and
#: ``closes_protocol`` differs on purpose (below).
SKIP = {"loop_at_import", "closes_protocol"}
BOTS = sorted(path.stem for path in SDK_BOTS.glob("*.py") if path.stem not in SKIP)


def one_game(source: str, runner: Runner) -> GameOutcome:
    specs = [BotSpec.parse(source), BotSpec.parse(OPPONENT)]
    (outcome,) = play_match(FIVE_CUCUMBERS, specs, runner, seed=3, game_numbers=[1])
    return outcome


@pytest.mark.parametrize("name", BOTS)
def test_a_misbehaving_bot_faults_in_docker_as_in_a_process(name: str, staging: Path) -> None:
    source = str(SDK_BOTS / f"{name}.py")
    docker = one_game(source, docker_runner(staging))
    local = one_game(source, make_runner("process", FAST))
    assert docker.faults == local.faults
    assert docker.placement == local.placement


def test_a_closed_protocol_channel_is_a_timeout_in_docker(staging: Path) -> None:
    # A bot that closes its protocol descriptor and lives on is seen as silent: a timeout,
    # still its own fault. On the attach stream, Docker keeps a container's stdout open
    # until the container ends; on the socket channel, the host holds the socket twice
    # (reading and writing), and one closed descriptor leaves it open.
    runner = docker_runner(staging)
    specs = [BotSpec.parse(str(SDK_BOTS / "closes_protocol.py")), BotSpec.parse(OPPONENT)]
    (outcome,) = play_match(FIVE_CUCUMBERS, specs, runner, seed=3, game_numbers=[1])
    assert [(f.seat, f.kind) for f in outcome.faults] == [
        (outcome.bots.index(0), FaultKind.TIMEOUT)
    ]
    assert_nothing_left(runner)
