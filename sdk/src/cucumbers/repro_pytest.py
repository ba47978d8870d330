"""``cucumbers repro --pytest FILE``: a recorded game as a self-contained regression test.

The test carries the replay inside it (gzip, base64: no file to keep next to it) and names
the bot file relative to the test's folder, so it runs from anywhere and keeps running
after the bot is edited: it fails while the bot departs from the record (or faults), and
passes once the bot plays the recorded game again, or plays where it used to fault.
"""

from __future__ import annotations

import base64
import os
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .replay import dumps_replay, gzip_bytes

_TEMPLATE = '''\
"""Seat {seat} of a recorded {game} game, played back to {bot_name} (written by
`cucumbers repro --pytest`). It fails while the bot plays differently from the record or
faults, and says where, with the view; it passes once the bot plays the recorded game."""

import base64
from pathlib import Path

from cucumbers.loader import load_bot
from cucumbers.replay import loads_replay
from cucumbers.repro import format_result, reproduce

BOT = Path(__file__).resolve().parent / {bot_path!r}
SEAT = {seat}
REPLAY = loads_replay(
    base64.b64decode(
        """
{blob}
"""
    ),
    "the recorded game",
)


def test_{test_name}_plays_the_recorded_game_again() -> None:
    result = reproduce(REPLAY, SEAT, load_bot(str(BOT)))
    assert result.same, format_result(result)
'''


def pytest_source(replay: Mapping[str, Any], seat: int, bot: Path, test_file: Path) -> str:
    """The text of a test file at ``test_file`` that replays seat ``seat`` to ``bot``."""
    blob = base64.b64encode(gzip_bytes(dumps_replay(replay))).decode("ascii")
    relative = os.path.relpath(bot.resolve(), test_file.resolve().parent)
    stem = "".join(c if c.isalnum() else "_" for c in bot.stem).strip("_") or "bot"
    return _TEMPLATE.format(
        seat=seat,
        game=replay.get("game", "recorded"),
        bot_name=bot.name,
        bot_path=Path(relative).as_posix(),
        blob="\n".join(textwrap.wrap(blob, 76)),
        test_name=stem.lower(),
    )
