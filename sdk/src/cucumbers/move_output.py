"""What a bot printed during one move, line by line: captured where the bot runs (the bot
host, or the in-process runner), sent with the move's answer, and kept per move in the
owner's replay (``replay-format.md``, ``plays[].output``). The per-game output tail is kept
as before, beside it.

What is captured: everything written through ``sys.stdout`` and ``sys.stderr`` while
``play`` runs (``print``, ``logging`` to a stream handler, ``sys.stderr.write``), including by
the bot's other threads meanwhile. What bypasses Python's streams (``os.write(1, ...)``, a
subprocess, a C extension) reaches the game's output tail only.

Bounds: :data:`MOVE_OUTPUT_CHARS` per move (the last ones are kept, the cut is marked), and
:data:`GAME_MOVE_OUTPUT_CHARS` per seat and game (the latest moves are kept: a fault is
usually at the end).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: The most characters of one move's output kept (its end).
MOVE_OUTPUT_CHARS = 2000
#: The most lines of one move's output kept (its last ones).
MOVE_OUTPUT_LINES = 100
#: The most characters of per-move output kept for one seat in one game (its latest moves).
GAME_MOVE_OUTPUT_CHARS = 16000


def cut_note(dropped: int) -> str:
    """The line that stands for ``dropped`` characters of output cut."""
    return f"[… {dropped} characters of output cut …]"


def to_lines(text: str, dropped: int = 0) -> tuple[str, ...]:
    """``text`` as lines, bounded by :data:`MOVE_OUTPUT_CHARS` and :data:`MOVE_OUTPUT_LINES`
    (the end kept, a first line saying what was cut, ``dropped`` characters before it
    included)."""
    if len(text) > MOVE_OUTPUT_CHARS:
        dropped += len(text) - MOVE_OUTPUT_CHARS
        text = text[-MOVE_OUTPUT_CHARS:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MOVE_OUTPUT_LINES:
        dropped += sum(len(line) + 1 for line in lines[:-MOVE_OUTPUT_LINES])
        lines = lines[-MOVE_OUTPUT_LINES:]
    return tuple([cut_note(dropped), *lines] if dropped else lines)


def check_lines(value: object) -> tuple[str, ...]:
    """Lines received from elsewhere (a host runs bot code: untrusted), bounded as
    :func:`to_lines` bounds them. Raises ``ValueError`` when ``value`` is not a list of
    strings."""
    if not isinstance(value, list | tuple) or not all(type(line) is str for line in value):
        raise ValueError("output must be a list of strings")
    if len(value) <= MOVE_OUTPUT_LINES and sum(len(line) for line in value) <= MOVE_OUTPUT_CHARS:
        return tuple(value)
    return to_lines("\n".join(value))


class MoveCapture:
    """Collects what is written during a move. :meth:`start` opens a move, :meth:`take`
    closes it and returns its lines. Only the last ``2 * MOVE_OUTPUT_CHARS`` characters
    are held while a move runs, so a flood costs nothing."""

    def __init__(self) -> None:
        self.active = False
        self._parts: list[str] = []
        self._size = 0
        self._dropped = 0

    def start(self) -> None:
        self.active = True
        self._parts, self._size, self._dropped = [], 0, 0

    def add(self, text: str) -> None:
        if not self.active or not text:
            return
        self._parts.append(text)
        self._size += len(text)
        if self._size > 2 * MOVE_OUTPUT_CHARS:
            joined = "".join(self._parts)
            keep = joined[-MOVE_OUTPUT_CHARS:]
            self._dropped += len(joined) - len(keep)
            self._parts, self._size = [keep], len(keep)

    def take(self) -> tuple[str, ...]:
        if not self.active:
            return ()
        self.active = False
        if not self._parts:  # the common case: nothing printed
            return ()
        text, dropped = "".join(self._parts), self._dropped
        self._parts, self._size, self._dropped = [], 0, 0
        return to_lines(text, dropped)


class TeeStream(io.TextIOBase):
    """A text stream that writes through to ``stream`` and, during a move, into ``capture``.
    Installed as ``sys.stdout`` and ``sys.stderr``, so even a logging handler made before
    the first move (it holds the stream object) is captured per move."""

    def __init__(self, stream: Any, capture: MoveCapture) -> None:
        # Any: sys.stdout, sys.stderr, or the in-process runner's TextTail
        super().__init__()
        self._stream = stream
        self._capture = capture

    def write(self, text: str) -> int:
        written = self._stream.write(text)  # raises for a non-str, as the stream would
        if self._capture.active:
            self._capture.add(text)
        return int(written) if written is not None else len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._stream.flush()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return int(self._stream.fileno())

    def isatty(self) -> bool:
        return bool(self._stream.isatty())

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(self._stream.encoding or "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        errors = self._stream.errors
        return None if errors is None else str(errors)

    @property
    def buffer(self) -> Any:
        return self._stream.buffer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@dataclass(frozen=True, slots=True)
class MoveOutput:
    """The lines one seat's bot printed during its decision at ``round``/``trick``."""

    round: int
    trick: int
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "trick": self.trick, "lines": list(self.lines)}

    @classmethod
    def from_json(cls, data: Any) -> MoveOutput:
        return cls(int(data["round"]), int(data["trick"]), check_lines(data["lines"]))


def bounded_game_output(moves: Sequence[MoveOutput]) -> tuple[MoveOutput, ...]:
    """One seat's moves with output, the latest kept within :data:`GAME_MOVE_OUTPUT_CHARS`;
    the first move kept says how many earlier moves' output was dropped."""
    kept: list[MoveOutput] = []
    size = 0
    for index in range(len(moves) - 1, -1, -1):
        cost = sum(len(line) + 1 for line in moves[index].lines)
        if size + cost > GAME_MOVE_OUTPUT_CHARS:
            first = moves[index + 1] if kept else None
            if first is not None:
                note = f"[… the output of {index + 1} earlier moves cut …]"
                kept[-1] = MoveOutput(first.round, first.trick, (note, *first.lines))
            break
        kept.append(moves[index])
        size += cost
    kept.reverse()
    return tuple(kept)
