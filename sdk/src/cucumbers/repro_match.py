"""``cucumbers repro`` of a game of a match: the bot first gets its views of every earlier game
of the match, so that what it keeps across games is what it had in the match.

A bot keeps its state from game to game of a match (one process plays them all), so a fault
at its 60th move of the match may need the 59 before it, some of them in earlier games. The
earlier games' replays lie beside the one asked (``cucumbers download`` fetches every game
of a match: ``match-41-game-1.json.gz`` ...; ``cucumbers play --replays`` writes
``game-00001.json`` ...). In each, the bot sits at the seat whose player entry is the same as
in the game asked (the site's entries carry the bot's id and version).

What restarts a bot in a match restarts it here: after an earlier game in which it timed out,
broke the protocol or its process died, the next game starts with a fresh bot object, as the
runner starts a fresh process. An exception alone keeps the bot (and its state) alive.

>>> games = match_games(Path("replays/match-41-game-3.json.gz"), seat=2)   # doctest: +SKIP
>>> result = reproduce_match(games, lambda: load_bot("mybot.py"))           # doctest: +SKIP
>>> result.game.reproduced                                                  # doctest: +SKIP
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bot import Bot
from .faults import FaultKind
from .replay import Replay, load_replay
from .repro import ReplayMismatch, ReproResult, reproduce
from .runners.base import Limits

#: ``match-41-game-3.json.gz`` (``cucumbers download``, or ``-003`` from the site's page) and
#: ``game-00003.json`` (``cucumbers play --replays``).
_NAMES = (
    re.compile(r"^(?P<prefix>match-(?P<match>\d+)-game-)(?P<game>\d+)\.json(?:\.gz)?$"),
    re.compile(r"^(?P<prefix>game-)(?P<game>\d+)\.json(?:\.gz)?$"),
)


class MatchFilesError(ValueError):
    """The earlier games of a match cannot be read or matched to the bot; says which."""


@dataclass(frozen=True, slots=True)
class MatchGame:
    """One game of a match as repro plays it: its replay, file, number and the bot's seat."""

    replay: Replay
    path: Path
    number: int
    seat: int


@dataclass(frozen=True, slots=True)
class MatchRepro:
    """What :func:`reproduce_match` found: the earlier games (played to their end, the
    bot's departures counted), where the bot was restarted, and the game asked."""

    earlier: tuple[ReproResult, ...]
    restarted_before: tuple[int, ...]
    game: ReproResult


def game_number(path: Path) -> int | None:
    """The game's number in its match, from the file's name; None for another name."""
    for pattern in _NAMES:
        if found := pattern.match(path.name):
            return int(found["game"])
    return None


def _player_key(player: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((str(k), repr(v)) for k, v in player.items() if k != "seat"))


def match_games(path: Path, seat: int, replay: Replay | None = None) -> list[MatchGame]:
    """The games of ``path``'s match up to it, oldest first, with the bot's seat in each
    (``seat`` in the game asked). Just the one game when its name says no match, or none of
    the earlier games lies beside it. Raises :class:`MatchFilesError` when only some of them
    do, or the bot cannot be found in one."""
    replay = replay if replay is not None else load_replay(path)
    number = game_number(path)
    this = MatchGame(replay, path, number or 1, seat)
    if number is None or number == 1:
        return [this]
    prefix = next(m["prefix"] for p in _NAMES if (m := p.match(path.name)) is not None)
    siblings: dict[int, Path] = {}
    for other in path.parent.iterdir():
        if other.name.startswith(prefix) and (n := game_number(other)) is not None and n < number:
            siblings.setdefault(n, other)
    if not siblings:
        return [this]
    missing = [n for n in range(1, number) if n not in siblings]
    if missing:
        raise MatchFilesError(
            f"games {', '.join(map(str, missing))} of the match are not beside {path}"
            " (cucumbers download fetches every game of a match; --alone replays this game"
            " alone)"
        )
    players = replay.get("players", [])
    if not 0 <= seat < len(players):
        raise MatchFilesError(f"no seat {seat} in {path}")
    key = _player_key(players[seat])
    games = []
    for n in range(1, number):
        earlier = load_replay(siblings[n])
        seats = [s for s, p in enumerate(earlier.get("players", [])) if _player_key(p) == key]
        if len(seats) != 1:
            how = "not" if not seats else f"{len(seats)} times"
            raise MatchFilesError(
                f"{siblings[n]}: the player {players[seat].get('name')!r} of seat {seat} is"
                f" {how} in it: is it of the same match? (--alone replays this game alone)"
            )
        games.append(MatchGame(earlier, siblings[n], n, seats[0]))
    return [*games, this]


def restarts_after(result: ReproResult, replay: Mapping[str, Any]) -> bool:
    """Whether the runner restarted the bot after this game: it timed out, broke the
    protocol, or its process died (a fault the record has; an exception keeps it alive)."""
    for fault in replay.get("faults", []):
        if fault.get("seat") != result.seat:
            continue
        kind, detail = fault.get("kind"), str(fault.get("detail", ""))
        if kind in (FaultKind.TIMEOUT, FaultKind.PROTOCOL):
            return True
        if kind == FaultKind.CRASH and detail.startswith("the bot's process"):
            return True
    return False


def reproduce_match(
    games: Sequence[MatchGame],
    new_bot: Callable[[], Bot],
    *,
    limits: Limits | None = None,
    bot_file: str | None = None,
) -> MatchRepro:
    """Play the earlier ``games`` to their end to one bot object from ``new_bot`` (a fresh
    one where the runner restarted it), then compare its moves in the last game as
    :func:`~cucumbers.repro.reproduce` does. Raises
    :class:`~cucumbers.repro.ReplayMismatch`."""
    if not games:
        raise ReplayMismatch("no game to replay")
    bot = new_bot()
    earlier: list[ReproResult] = []
    restarted: list[int] = []
    for game in games[:-1]:
        result = reproduce(
            game.replay,
            game.seat,
            bot,
            limits=limits,
            game_number=game.number,
            bot_file=bot_file,
            to_the_end=True,
        )
        earlier.append(result)
        if restarts_after(result, game.replay):
            bot = new_bot()
            restarted.append(game.number + 1)
    last = games[-1]
    asked = reproduce(
        last.replay, last.seat, bot, limits=limits, game_number=last.number, bot_file=bot_file
    )
    return MatchRepro(tuple(earlier), tuple(restarted), asked)


def format_earlier(result: MatchRepro, games: Sequence[MatchGame]) -> str:
    """The lines ``cucumbers repro`` prints of the earlier games."""
    lines = []
    for game, done in zip(games, result.earlier, strict=False):
        if done.departures or done.divergence is not None or done.not_reproduced is not None:
            how = f"{done.departures} of {done.decisions} decisions depart from the record"
            if done.divergence is not None:
                d = done.divergence
                how += f" (first round {d.step.round} trick {d.step.trick}: {d.now})"
        else:
            how = f"{done.decisions} decisions, all the same"
        lines.append(f"  game {game.number} ({game.path.name}), seat {game.seat}: {how}")
        if game.number + 1 in result.restarted_before:
            lines.append(f"  the bot is restarted for game {game.number + 1}, as the runner did")
    return "\n".join(lines)
