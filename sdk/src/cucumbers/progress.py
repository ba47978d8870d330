"""A one-line progress bar on a terminal's stderr (silent when stderr is not a terminal)."""

from __future__ import annotations

import time
from types import TracebackType
from typing import TextIO

#: Runs shorter than this never show a bar.
SHOW_AFTER_SECONDS = 1.0


class ProgressBar:
    """``with ProgressBar(total, sys.stderr) as bar: bar.update(done)``."""

    def __init__(self, total: int, stream: TextIO, width: int = 30) -> None:
        self.total = total
        self.stream = stream
        self.width = width
        self.enabled = stream.isatty()
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._shown = False

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._started < SHOW_AFTER_SECONDS or (
            now - self._last_draw < 0.1 and done < self.total
        ):
            return
        self._last_draw = now
        filled = int(self.width * done / self.total) if self.total else self.width
        rate = done / (now - self._started)
        left = (self.total - done) / rate if rate > 0 else 0.0
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} games, {rate:.1f}/s, {left:.0f} s left ")
        self.stream.flush()
        self._shown = True

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._shown:
            self.stream.write("\r" + " " * (self.width + 60) + "\r")
            self.stream.flush()
