"""A bot's traceback as its owner reads it: every frame in the bot's own file, with its code
line, and the exception; the frames of the host, the runner, the SDK and the standard library
left out (they say nothing about the bot, and name paths of the machine that ran it).

The bot host builds one when the bot raises (in ``play``, a hook, or while loading) and sends
it with the fault; the runner checks it (:meth:`BotTraceback.from_json`: a host runs bot code,
so what it sends is untrusted) and the fault carries it to the report, the site (owner and
staff only) and ``cucumbers download``. It is never part of a public replay.

>>> try:
...     {}["missing-key"]
... except KeyError as error:
...     print(bot_traceback(error, "crashy.py").format())    # doctest: +SKIP
Traceback (most recent call last), the bot's own frames:
  File "crashy.py", line 13, in pick
    return table["missing-key"]
KeyError: 'missing-key'

Bounds: at most :data:`HEAD_FRAMES` frames from the outermost and :data:`TAIL_FRAMES` from the
innermost (a deep recursion keeps both ends and counts what it left out), code lines of at most
:data:`MAX_CODE_CHARS` and an exception text of at most :data:`MAX_EXCEPTION_CHARS`.

The loader imports this module only once a bot has failed: a host's start-up stays lean.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

#: Frames kept from the outermost end, and from the innermost (where the bot failed).
HEAD_FRAMES = 10
TAIL_FRAMES = 30
#: Longest code line, function name and file name kept.
MAX_CODE_CHARS = 300
MAX_NAME_CHARS = 200
#: Longest exception text kept (``KeyError: 'missing-key'``, with any notes).
MAX_EXCEPTION_CHARS = 2000


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of the bot's own file: where it was (``file``, ``line``, ``function``) and
    the code on that line (stripped; empty when the file could not be read)."""

    file: str
    line: int
    function: str
    code: str

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "function": self.function, "code": self.code}


@dataclass(frozen=True, slots=True)
class BotTraceback:
    """The traceback of the exception that ended a bot's move (or its loading).

    Attributes:
        frames: the bot's own frames, outermost first.
        exception: the exception as Python prints its last line (``KeyError: 'missing-key'``).
        omitted: frames of the bot's file left out between the first :data:`HEAD_FRAMES` and
            the last :data:`TAIL_FRAMES` (a deep recursion); 0 when none was.
    """

    frames: tuple[Frame, ...]
    exception: str
    omitted: int = 0

    def to_json(self) -> dict[str, Any]:
        """The traceback as JSON (``replay-format.md``, ``faults[].traceback``)."""
        data: dict[str, Any] = {
            "frames": [frame.to_json() for frame in self.frames],
            "exception": self.exception,
        }
        if self.omitted:
            data["omitted"] = self.omitted
        return data

    @classmethod
    def from_json(cls, data: object) -> BotTraceback:
        """A traceback from its JSON, cut to the bounds. Raises ``ValueError`` for anything
        that is not shaped like one (it may come from a hostile bot's process)."""
        if not isinstance(data, Mapping) or not {"frames", "exception"} <= set(data):
            raise ValueError("a traceback is an object with frames and exception")
        if set(data) - {"frames", "exception", "omitted"}:
            raise ValueError("a traceback has only the keys frames, exception and omitted")
        frames, exception, omitted = data["frames"], data["exception"], data.get("omitted", 0)
        if not isinstance(frames, list) or type(exception) is not str or type(omitted) is not int:
            raise ValueError("a traceback's frames is a list, exception a string, omitted an int")
        if omitted < 0 or len(frames) > HEAD_FRAMES + TAIL_FRAMES:
            raise ValueError(f"a traceback keeps at most {HEAD_FRAMES + TAIL_FRAMES} frames")
        kept = []
        for frame in frames:
            if not isinstance(frame, Mapping) or set(frame) != {"file", "line", "function", "code"}:
                raise ValueError("a frame has exactly the keys file, line, function and code")
            file, line, function, code = (frame[k] for k in ("file", "line", "function", "code"))
            if type(line) is not int or not all(type(v) is str for v in (file, function, code)):
                raise ValueError("a frame's line is an int, its other keys strings")
            kept.append(
                Frame(
                    _cut(file, MAX_NAME_CHARS),
                    line,
                    _cut(function, MAX_NAME_CHARS),
                    _cut(code, MAX_CODE_CHARS),
                )
            )
        return cls(tuple(kept), _cut(exception, MAX_EXCEPTION_CHARS), omitted)

    def format(self) -> str:
        """The traceback as Python prints one, with only the bot's frames."""
        lines = ["Traceback (most recent call last), the bot's own frames:"]
        for index, frame in enumerate(self.frames):
            if self.omitted and index == min(HEAD_FRAMES, len(self.frames)):
                lines.append(f"  [… {self.omitted} more frames of the bot's file …]")
            lines.append(f'  File "{frame.file}", line {frame.line}, in {frame.function}')
            if frame.code:
                lines.append(f"    {frame.code}")
        if not self.frames:
            lines.append("  (no frame in the bot's own file)")
        lines.append(self.exception)
        return "\n".join(lines)


def format_json(data: object) -> str:
    """:meth:`BotTraceback.format` of a traceback's JSON; a note if it is not one."""
    try:
        return BotTraceback.from_json(data).format()
    except ValueError as error:
        return f"(an unreadable traceback: {error})"


def _exception_text(error: BaseException) -> str:
    import traceback  # only once a bot failed (the module docstring)

    try:
        text = "".join(traceback.format_exception_only(error)).rstrip("\n")
    except BaseException:  # the exception's own __str__ is bot code
        text = type(error).__name__
    return _cut(text, MAX_EXCEPTION_CHARS)


def _source_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read().splitlines()
    except OSError:
        return []


def bot_traceback(error: BaseException, bot_file: str | None) -> BotTraceback:
    """The traceback of ``error`` with only the frames of ``bot_file`` (the bot's ``.py``
    path; the loader compiles it under its base name, which its frames carry). Never
    raises: a bot's exception may be anything."""
    name = os.path.basename(bot_file) if bot_file else None
    found: list[tuple[str, int, str]] = []
    tb: TracebackType | None = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if name is not None and code.co_filename == name:
            found.append((code.co_filename, tb.tb_lineno or 0, code.co_name))
        tb = tb.tb_next
    omitted = 0
    if len(found) > HEAD_FRAMES + TAIL_FRAMES:
        omitted = len(found) - HEAD_FRAMES - TAIL_FRAMES
        found = found[:HEAD_FRAMES] + found[-TAIL_FRAMES:]
    lines = _source_lines(bot_file) if found and bot_file else []
    frames = tuple(
        Frame(
            _cut(file, MAX_NAME_CHARS),
            line,
            _cut(function, MAX_NAME_CHARS),
            _cut(lines[line - 1].strip(), MAX_CODE_CHARS) if 0 < line <= len(lines) else "",
        )
        for file, line, function in found
    )
    return BotTraceback(frames, _exception_text(error), omitted)
