"""The runner's clock: seconds in which this process could watch its bots.

A bot is timed by the process that runs it. When that process does not run (stopped with
SIGSTOP, frozen by a cgroup freezer, its virtual machine paused, or starved of CPU for a
long stretch), the bots it watches go on running, and a plain monotonic clock would charge
them the stall: a bot that answered in a millisecond would find its move late by the
length of the stall, and be faulted for the runner's absence.

This clock leaves those stretches out. It advances with ``time.monotonic`` between
observations, by at most :data:`MAX_STEP` seconds per observation. A ticker thread observes
it every :data:`TICK` seconds, so while the process runs no gap between observations is
longer than a tick and scheduling jitter; a gap longer than :data:`MAX_STEP` means the
process (its ticker and every other thread) did not run, and only :data:`MAX_STEP` of it
counts. Whoever observes first after a stall (the ticker, or a runner asking for the time
as it wakes up) sees the gap; the clock never goes back.

What a stall costs a bot is then at most :data:`MAX_STEP` per stall; what it can gain is
the runner's absence, during which nobody could have timed it. A bot cannot cause a stall
of its runner: its CPU share is bounded by its sandbox's quota, and the match as a whole
still ends within the worker's hard time limit.

The clock is per process; a forked child starts its own ticker on its first use.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Final

#: How often the ticker observes the clock (seconds).
TICK: Final = 0.1
#: The longest gap between two observations counted in full: longer ones are a stall of
#: this process (well beyond a tick plus the scheduling delays of a loaded machine).
MAX_STEP: Final = 0.5


class StallClock:
    """Monotonic seconds that leave out this process's stalls (module docstring)."""

    def __init__(self, tick: float = TICK, max_step: float = MAX_STEP) -> None:
        if not 0 < tick < max_step:
            raise ValueError(f"the tick ({tick}) must be positive and below the step ({max_step})")
        self.tick = tick
        self.max_step = max_step
        self._lock = threading.Lock()
        self._observed = time.monotonic()  # when the clock was last observed (monotonic)
        self._stalled = 0.0  # seconds left out so far: the reading is monotonic less these
        self._ticker: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._forked)

    def now(self) -> float:
        """The clock's reading: seconds, comparable only with other readings of this
        process's clock (like ``time.monotonic``)."""
        if self._ticker is None:
            self._start_ticker()
        # Observing it: whoever observes first after a stall sees the gap.
        with self._lock:
            now = time.monotonic()
            gap = now - self._observed
            if gap > self.max_step:
                self._stalled += gap - self.max_step
            self._observed = now
            return now - self._stalled

    @property
    def stalled(self) -> float:
        """Seconds left out so far (the stalls beyond :attr:`max_step` each)."""
        with self._lock:
            return self._stalled

    def _start_ticker(self) -> None:
        with self._lock:
            if self._ticker is not None:
                return
            self._ticker = threading.Thread(target=self._tick, name="cucumbers-clock", daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while True:
            time.sleep(self.tick)
            self.now()

    def _forked(self) -> None:
        """In a forked child the parent's ticker is gone, its lock may have been held by
        a thread that is not there, and the time since the parent last observed the clock
        was no stall of this process: start afresh, ticker included on the first use."""
        self._lock = threading.Lock()
        self._ticker = None
        self._observed = time.monotonic()


_clock = StallClock()

#: This process's :class:`StallClock` reading: what every bot deadline, start-up limit and
#: move time of the runners and the match loop is measured with (the bound method itself:
#: one call less a reading).
runner_clock: Final = _clock.now


def stalled_seconds() -> float:
    """Seconds this process's runner clock has left out so far."""
    return _clock.stalled
