"""The runner's clock leaves out the stretches in which its process did not run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cucumbers.runners.clock import MAX_STEP, StallClock

#: A process that answers each line of input with its runner clock, its monotonic clock
#: and the seconds its runner clock left out; it forks on ``fork`` and answers from the child.
READER = """
import os, sys, time
from cucumbers.runners.clock import runner_clock, stalled_seconds
for line in sys.stdin:
    if line.strip() == "fork" and os.fork() != 0:
        os.wait()
        continue
    print(runner_clock(), time.monotonic(), stalled_seconds(), flush=True)
    if line.strip() == "fork":
        time.sleep(0.3)
        print(runner_clock(), time.monotonic(), stalled_seconds(), flush=True)
        os._exit(0)
"""


class Reader:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, line: str = "now") -> tuple[float, float, float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.answer()

    def answer(self) -> tuple[float, float, float]:
        assert self.process.stdout is not None
        clock, monotonic, stalled = map(float, self.process.stdout.readline().split())
        return clock, monotonic, stalled

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
def reader() -> Iterator[Reader]:
    reader = Reader()
    yield reader
    reader.close()


def stopped_state(pid: int) -> bool:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"


def test_a_stopped_process_clock_counts_at_most_one_step_of_the_stop(reader: Reader) -> None:
    clock, monotonic, stalled = reader.ask()
    os.kill(reader.process.pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10
        while not stopped_state(reader.process.pid):
            assert time.monotonic() < deadline, "the process never stopped"
            time.sleep(0.001)
        time.sleep(2.0)  # the stall itself
    finally:
        os.kill(reader.process.pid, signal.SIGCONT)
    clock_after, monotonic_after, stalled_after = reader.ask()
    assert monotonic_after - monotonic >= 2.0
    assert clock_after - clock <= MAX_STEP + 0.25  # the step, and the reads around the stop
    assert stalled_after - stalled >= 2.0 - MAX_STEP - 0.25
    # What it left out is exactly the difference between the two clocks.
    left_out = (monotonic_after - monotonic) - (clock_after - clock)
    assert left_out == pytest.approx(stalled_after - stalled, abs=1e-6)


def test_a_running_process_clock_keeps_time(reader: Reader) -> None:
    clock, monotonic, stalled = reader.ask()
    time.sleep(1.0)  # the child idles in a read; its ticker observes the clock
    clock_after, monotonic_after, stalled_after = reader.ask()
    assert monotonic_after - monotonic >= 1.0
    assert clock_after - clock == pytest.approx(
        (monotonic_after - monotonic) - (stalled_after - stalled), abs=1e-6
    )
    assert stalled_after - stalled < 0.25  # not stopped: nothing (or next to nothing) left out


def test_a_forked_child_has_a_clock_of_its_own(reader: Reader) -> None:
    reader.ask()  # the parent's ticker runs
    clock, monotonic, _ = reader.ask("fork")
    clock_after, monotonic_after, _ = reader.answer()  # the child, 0.3 s later
    assert monotonic_after - monotonic >= 0.3
    assert clock_after - clock == pytest.approx(monotonic_after - monotonic, abs=0.05)
    assert reader.ask()[0] >= clock_after - 0.3  # the parent reads on


def test_a_tick_must_be_shorter_than_the_step() -> None:
    with pytest.raises(ValueError, match="tick"):
        StallClock(tick=0.5, max_step=0.5)
    with pytest.raises(ValueError, match="tick"):
        StallClock(tick=0, max_step=0.5)
