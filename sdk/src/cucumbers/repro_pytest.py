"""``cucumbers repro --pytest FILE``: a recorded game as a self-contained regression test.

The test carries the replays inside it (the game and, as ``cucumbers repro`` replayed them,
the earlier games of its match; gzip, base64: no file to keep next to it) and names the bot
file relative to the test's folder, so it runs from anywhere and keeps running after the bot
is edited: it fails while the bot departs from the record (or faults), and passes once the
bot plays the recorded game again, or plays where it used to fault.
"""

from __future__ import annotations

import base64
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path

from .replay import dumps_replay, gzip_bytes
from .repro_match import MatchGame

_TEMPLATE = '''\
"""Seat {seat} of a recorded {game} game (game {number} of its match{earlier}), played back
to {bot_name} (written by `cucumbers repro --pytest`). It fails while the bot plays
differently from the record or faults, and says where, with the view; it passes once the bot
plays the recorded game."""

import base64
from pathlib import Path

from cucumbers.loader import load_bot
from cucumbers.replay import loads_replay
from cucumbers.repro import format_result
from cucumbers.repro_match import MatchGame, format_earlier, reproduce_match

BOT = Path(__file__).resolve().parent / {bot_path!r}
# (game number in the match, the bot's seat, the replay): the earlier games first.
RECORDED = [
{games}
]
GAMES = [
    MatchGame(loads_replay(base64.b64decode(blob), f"game {{number}}"), Path(f"game {{number}}"),
              number, seat)
    for number, seat, blob in RECORDED
]


def test_{test_name}_plays_the_recorded_game_again() -> None:
    result = reproduce_match(GAMES, lambda: load_bot(str(BOT)), bot_file=str(BOT))
    assert result.game.same, format_earlier(result, GAMES) + "\\n" + format_result(result.game)
'''


def pytest_source(games: Sequence[MatchGame], seat: int, bot: Path, test_file: Path) -> str:
    """The text of a test file at ``test_file`` that replays ``games`` (the earlier games of
    the match first) to ``bot``, whose seat in the last one is ``seat``."""
    entries = []
    for game in games:
        blob = base64.b64encode(gzip_bytes(dumps_replay(game.replay))).decode("ascii")
        wrapped = "\n".join(f"        {line!r}" for line in textwrap.wrap(blob, 76))
        entries.append(f"    ({game.number}, {game.seat}, (\n{wrapped}\n    )),")
    relative = os.path.relpath(bot.resolve(), test_file.resolve().parent)
    stem = "".join(c if c.isalnum() else "_" for c in bot.stem).strip("_") or "bot"
    last = games[-1]
    earlier = f", after its {len(games) - 1} earlier games" if len(games) > 1 else ""
    return _TEMPLATE.format(
        seat=seat,
        game=last.replay.get("game", "recorded"),
        number=last.number,
        earlier=earlier,
        bot_name=bot.name,
        bot_path=Path(relative).as_posix(),
        games="\n".join(entries),
        test_name=stem.lower(),
    )
