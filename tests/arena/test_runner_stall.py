"""A runner that does not run is not its bots' time (issue "faults at the edges").

The fault campaign stopped an arena worker with SIGSTOP for 20 s and a bot was charged a
move timeout for it. Here the runner process of a real match (``tests/arena/stall_match.py``,
the SDK's match loop and runners) is stopped mid-move and while its bots start, for longer
than the move, bank and start-up limits, under ``--sandbox process`` and in Docker: no bot
may be faulted, and the match plays to its end.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import labels
from arena.sandbox.container import engine_client

REPO = Path(__file__).parents[2]
BOTS = Path(__file__).parent / "stall_bots"
SANDBOXES = ["process", "docker"]
#: Deadline for any event awaited here (a match of a few games on a loaded machine).
EVENT_SECONDS = 60.0


def launch(
    sandbox: str, *, move: float, bank: float, startup: float, games: int, bots: list[str]
) -> subprocess.Popen[str]:
    command = [sys.executable, str(Path(__file__).parent / "stall_match.py"), sandbox]
    command += [str(move), str(bank), str(startup), str(games), *bots]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True)


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + EVENT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {EVENT_SECONDS:g} s"
        time.sleep(0.005)


def stop_for(pid: int, seconds: float) -> None:
    """SIGSTOP ``pid`` (only that process: its bots run on), keep it stopped ``seconds``
    (the fault's own length, measured from the moment the kernel reports it stopped), then
    SIGCONT it."""
    os.kill(pid, signal.SIGSTOP)
    try:
        wait_for(
            lambda: Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T",
            "stop",
        )
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


def result_of(match: subprocess.Popen[str]) -> dict[str, Any]:
    try:
        out, _ = match.communicate(timeout=EVENT_SECONDS)
    finally:
        match.kill()
    assert match.returncode == 0
    document = json.loads(out.splitlines()[-1])
    assert isinstance(document, dict)
    return document


def children(pid: int) -> list[str]:
    found: list[str] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += (task / "children").read_text().split()
    return found


def running_containers_of(pid: int, since: float) -> int:
    """The running containers labelled with runner ``pid`` and created since ``since``
    (epoch seconds), in one listing. Running: the engine has started them, so their bots
    are on their way to ready whatever the runner does next (stopped just after it created
    them, the runner would not have asked the engine to start them yet). One listing:
    ``containers.list`` inspects each container it lists and fails when one is removed in
    between. Created since the launch: over a long run pids come round again (``pid_max`` is
    32768 here), and an earlier match's container may carry the same runner pid."""
    client = engine_client()
    try:
        filters = {"label": f"{labels.RUNNER_PID}={pid}", "status": "running"}
        listed = client.api.containers(filters=filters)
        return sum(1 for container in listed if container["Created"] >= int(since))
    finally:
        client.close()


@pytest.mark.parametrize("where", SANDBOXES)
def test_a_runner_stopped_mid_move_charges_no_bot(
    where: str, request: pytest.FixtureRequest
) -> None:
    if where == "docker":
        request.getfixturevalue("sandbox")  # the image, or a skip (a failure under CI)
    match = launch(
        where,
        move=0.5,
        bank=1.0,
        startup=30,
        games=1,
        bots=[str(BOTS / "slow_move.py"), "builtin:lowest"],
    )
    assert match.stdout is not None
    asked = 0
    while asked < 2:  # its second move: the bots are up, and it is thinking (0.2 s)
        line = match.stdout.readline()
        assert line.startswith("move "), f"the match ended first: {line!r}"
        asked += line == "move slow_move\n"
    # Stopped 3 s, its runner sees no more than half a second of the stall: with the bot's
    # 0.2 s, beyond the 0.5 s move limit by less than the 1 s bank.
    stop_for(match.pid, 3.0)
    result = result_of(match)
    assert result == {"faults": [], "games": 1}


@pytest.mark.parametrize("where", SANDBOXES)
def test_a_runner_stopped_while_its_bots_start_charges_no_bot(
    where: str, request: pytest.FixtureRequest
) -> None:
    if where == "docker":
        request.getfixturevalue("sandbox")
    slow = str(BOTS / "slow_start.py")  # ready 6.5 s after its start
    launched = time.time()
    match = launch(where, move=1.0, bank=1.0, startup=5.0, games=1, bots=[slow, slow])
    if where == "docker":
        wait_for(lambda: running_containers_of(match.pid, launched) == 2, "container started")
    else:
        wait_for(lambda: len(children(match.pid)) == 2, "bot host started")
    # Stopped 6 s from its bots' start: they are ready after 6.5 s, beyond the 5 s start-up
    # limit in plain time, within it on the runner's clock (6 s less half a second).
    stop_for(match.pid, 6.0)
    result = result_of(match)
    assert result == {"faults": [], "games": 1}
