"""The runner's clock leaves out the stretches in which its process did not run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cucumbers.runners.clock import MAX_STEP, StallClock

#: A process that answers each line of input with its runner clock, the monotonic clock
#: just before and just after that reading (the two cannot be read at one instant), and the
#: seconds its runner clock left out; it forks on ``fork`` and answers from the child.
READER = """
import os, sys, time
from cucumbers.runners.clock import runner_clock, stalled_seconds
def answer():
    before = time.monotonic()
    clock = runner_clock()
    after = time.monotonic()
    print(clock, before, after, stalled_seconds(), flush=True)
for line in sys.stdin:
    if line.strip() == "fork" and os.fork() != 0:
        os.wait()
        continue
    answer()
    if line.strip() == "fork":
        time.sleep(0.3)
        answer()
        os._exit(0)
"""


@dataclass(frozen=True)
class Reading:
    clock: float
    before: float  # monotonic, just before the clock was read
    after: float  # and just after
    stalled: float


def left_out_between(first: Reading, second: Reading) -> tuple[float, float]:
    """The bounds of what the runner clock must have left out between two readings: the
    monotonic time between them (known within the reads' brackets) less its own advance."""
    advance = second.clock - first.clock
    return second.before - first.after - advance, second.after - first.before - advance


class Reader:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def ask(self, line: str = "now") -> Reading:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        return self.answer()

    def answer(self) -> Reading:
        assert self.process.stdout is not None
        return Reading(*map(float, self.process.stdout.readline().split()))

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
    first = reader.ask()
    os.kill(reader.process.pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10
        while not stopped_state(reader.process.pid):
            assert time.monotonic() < deadline, "the process never stopped"
            time.sleep(0.001)
        time.sleep(2.0)  # the stall itself
    finally:
        os.kill(reader.process.pid, signal.SIGCONT)
    second = reader.ask()
    assert second.before - first.after >= 2.0
    assert second.clock - first.clock <= MAX_STEP + 0.25  # the step, and the reads around it
    stalled = second.stalled - first.stalled
    assert stalled >= 2.0 - MAX_STEP - 0.25
    # What it says it left out is what the two clocks' advances differ by.
    low, high = left_out_between(first, second)
    assert low - 1e-9 <= stalled <= high + 1e-9


def test_a_running_process_clock_keeps_time(reader: Reader) -> None:
    first = reader.ask()
    time.sleep(1.0)  # the child idles in a read; its ticker observes the clock
    second = reader.ask()
    assert second.before - first.after >= 1.0
    stalled = second.stalled - first.stalled
    low, high = left_out_between(first, second)
    assert low - 1e-9 <= stalled <= high + 1e-9
    assert stalled < 0.25  # not stopped: nothing (or next to nothing) left out


def test_a_forked_child_has_a_clock_of_its_own(reader: Reader) -> None:
    reader.ask()  # the parent's ticker runs
    forked = reader.ask("fork")
    later = reader.answer()  # the child, 0.3 s later
    assert later.before - forked.after >= 0.3
    assert later.clock - forked.clock == pytest.approx(later.after - forked.after, abs=0.05)
    assert reader.ask().clock >= later.clock - 0.3  # the parent reads on, from its own clock


def test_a_tick_must_be_shorter_than_the_step() -> None:
    with pytest.raises(ValueError, match="tick"):
        StallClock(tick=0.5, max_step=0.5)
    with pytest.raises(ValueError, match="tick"):
        StallClock(tick=0, max_step=0.5)
