"""Reading and writing replay files (``replay-format.md``).

A replay is one game as a JSON object. It is written in one canonical form, so the same game
always gives the same bytes: compact separators, keys in the order the engine put them, UTF-8
without ``\\u`` escapes, and a trailing newline. ``.json.gz`` files are gzip-compressed with a
zero timestamp and no file name, so they are byte-identical too.

>>> from cucumbers.replay import load_replay, save_replay
>>> save_replay(replay, "game.json.gz")          # doctest: +SKIP
>>> load_replay("game.json.gz")["game"]          # doctest: +SKIP
'five-cucumbers'

Checking a replay against the rules is :mod:`cucumbers.validator`'s job; this module only
checks what it needs to hand back a replay-shaped object.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

#: The value of the ``format`` key of every replay this SDK reads or writes.
REPLAY_FORMAT = "cucumbers-replay/1"

#: A replay as loaded from JSON: a plain dict (see ``replay-format.md`` for its keys).
Replay = dict[str, Any]

_GZIP_MAGIC = b"\x1f\x8b"
_SUFFIXES = (".json.gz", ".json")


class ReplayFileError(ValueError):
    """A replay file (or byte string) could not be read, or is not a replay: unreadable,
    not valid gzip, not UTF-8 JSON, not a JSON object, or a ``format`` other than
    :data:`REPLAY_FORMAT`. The message names the source and says which."""


def dumps_replay(replay: Mapping[str, Any]) -> bytes:
    """The canonical bytes of ``replay``: compact JSON in UTF-8, keys in their given order,
    with a trailing newline. The same replay always gives the same bytes.

    Raises :class:`ValueError` for values JSON cannot hold exactly (NaN, infinities) and
    :class:`TypeError` for objects that are not JSON at all.

    >>> dumps_replay({"format": "cucumbers-replay/1", "seed": 1})
    b'{"format":"cucumbers-replay/1","seed":1}\\n'
    """
    text = json.dumps(replay, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8") + b"\n"


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzip-compressed deterministically: no timestamp, no file name, a fixed
    "unknown" OS byte, so equal input gives equal output on any machine with the same
    zlib."""
    buffer = io.BytesIO()
    # GzipFile rather than gzip.compress: with mtime=0 the latter hands the header to zlib,
    # which writes the OS byte of the machine it runs on.
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as f:
        f.write(data)
    return buffer.getvalue()


def save_replay(replay: Mapping[str, Any], path: str | os.PathLike[str]) -> Path:
    """Write ``replay`` to ``path``: gzip-compressed if the name ends in ``.json.gz``, plain
    if it ends in ``.json`` (anything else is a :class:`ReplayFileError`). The file is
    replaced atomically, so a reader never sees half a replay. Returns the path written.
    """
    target = Path(path)
    name = target.name
    if name.endswith(".json.gz"):
        data = gzip_bytes(dumps_replay(replay))
    elif name.endswith(".json"):
        data = dumps_replay(replay)
    else:
        raise ReplayFileError(f"{target}: a replay file name must end in .json or .json.gz")
    directory = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def loads_replay(data: bytes, source: str = "replay") -> Replay:
    """Parse a replay from ``data``, plain JSON or gzip (recognised by its magic bytes, not
    by a name). ``source`` names the data in error messages. Raises
    :class:`ReplayFileError`."""
    if data[:2] == _GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise ReplayFileError(f"{source}: not a valid gzip file ({exc})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayFileError(f"{source}: not UTF-8 text (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ReplayFileError(
            f"{source}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # raised by _reject_constant
        raise ReplayFileError(f"{source}: not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ReplayFileError(f"{source}: a replay is a JSON object, got {_json_kind(value)}")
    found = value.get("format")
    if found != REPLAY_FORMAT:
        shown = "no format key" if "format" not in value else f"format {found!r}"
        raise ReplayFileError(f"{source}: not a {REPLAY_FORMAT} replay ({shown})")
    return value


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read the replay in ``path``, plain ``.json`` or gzip-compressed (detected by content,
    whatever the name). Raises :class:`ReplayFileError` if it cannot be read or is not a
    replay; it does not check the game against the rules (see
    :func:`cucumbers.validator.check_replay`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ReplayFileError(f"{os.fspath(path)}: cannot read replay: {reason}") from None
    return loads_replay(data, os.fspath(path))


def iter_replay_files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    """The replay files named by ``paths``, in order: a directory stands for its own
    ``*.json`` and ``*.json.gz`` files (not those of its subdirectories), sorted by name;
    any other path is yielded as given, so a missing file fails loudly when loaded."""
    for path in paths:
        p = Path(path)
        if p.is_dir():
            found = [c for c in p.iterdir() if c.name.endswith(_SUFFIXES) and c.is_file()]
            yield from sorted(found)
        else:
            yield p


def _reject_constant(name: str) -> Any:
    # json accepts NaN and Infinity by default; they are not JSON and never in a replay.
    raise ValueError(f"{name} is not allowed")


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return f"a {type(value).__name__}"
