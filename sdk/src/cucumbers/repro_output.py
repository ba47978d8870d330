"""What a bot prints while ``cucumbers repro`` plays its views back to it.

Repro runs the bot in its own process, so whatever the bot writes to ``sys.stdout`` or
``sys.stderr`` would land in the terminal among repro's report, unlabelled and before it (60
lines of a chatty bot ahead of the verdict). :class:`OutputTail` holds it instead: only its
last lines are kept, and :func:`format_tail` shows them after the report, labelled and
indented apart from it. What bypasses Python's streams (``os.write(1, ...)``, a subprocess)
still reaches the terminal directly.

>>> tail = OutputTail(lines=2)
>>> with tail.held():
...     for n in range(1, 6):
...         print(f"thinking {n}")
>>> print(format_tail(tail))
the bot's own output while replayed: 5 lines, the last 2 (--output-lines N for more):
  | thinking 4
  | thinking 5
"""

from __future__ import annotations

import io
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout

#: Lines of the bot's output shown after the report by default.
DEFAULT_LINES = 10
#: The longest line kept; a longer one is cut (a bot that prints a whole table on one line).
MAX_LINE_CHARS = 500


class OutputTail(io.TextIOBase):
    """A text stream that keeps the last ``lines`` lines written to it and counts them all."""

    def __init__(self, lines: int = DEFAULT_LINES) -> None:
        super().__init__()
        self.kept: deque[str] = deque(maxlen=max(lines, 0))
        self.count = 0
        self._partial = ""

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        *done, rest = (self._partial + text).split("\n")
        for line in done:
            self._keep(line)
        self._partial = rest[: MAX_LINE_CHARS + 1]
        return len(text)

    def _keep(self, line: str) -> None:
        self.count += 1
        cut = len(line) > MAX_LINE_CHARS
        self.kept.append(line[:MAX_LINE_CHARS] + (" [… cut]" if cut else ""))

    def writable(self) -> bool:
        return True

    def finish(self) -> None:
        """Count a last line written without its newline."""
        if self._partial:
            self._keep(self._partial)
            self._partial = ""

    @contextmanager
    def held(self) -> Iterator[OutputTail]:
        """``sys.stdout`` and ``sys.stderr`` write here while the block runs."""
        try:
            with redirect_stdout(self), redirect_stderr(self):
                yield self
        finally:
            self.finish()


def format_tail(tail: OutputTail) -> str | None:
    """The held output as repro shows it after its report, or None when there was none."""
    if not tail.count:
        return None
    lines = "line" if tail.count == 1 else "lines"
    if not tail.kept:
        return (
            f"the bot's own output while replayed: {tail.count} {lines}, not shown"
            " (--output-lines N shows the last N)"
        )
    if len(tail.kept) < tail.count:
        head = (
            f"the bot's own output while replayed: {tail.count} {lines}, the last"
            f" {len(tail.kept)} (--output-lines N for more):"
        )
    else:
        head = f"the bot's own output while replayed ({tail.count} {lines}):"
    return "\n".join([head, *(f"  | {line}" for line in tail.kept)])
