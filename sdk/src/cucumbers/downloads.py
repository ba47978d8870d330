"""A bot's matches from the server: the engine of ``cucumbers matches`` and
``cucumbers download``.

``download`` writes, for every finished match of the bot (every page, no cap), into one
folder so that ``cucumbers check-replay OUT`` reads them all::

    OUT/match-41-game-1.json.gz        each game's replay, ready for replay/check-replay/repro
    OUT/match-41-game-1.output.txt     your bots' own output tails of that game, if any
    OUT/match-41-game-1.faults.txt     the game's faults: where, the viewer's link to the
                                       move, and for your bots the whole traceback

The replay is the one the site serves you: for your bots it holds what they printed during
each move and their faults' tracebacks (``replay-format.md``), and ``cucumbers repro`` of a
game replays the match's earlier games first, so every game of a match is fetched.
Replays already there are kept, so running it again fetches only what is new.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .api import Client, RequestFailed
from .replay import ReplayFileError, load_replay, loads_replay, save_replay
from .tracebacks import format_json


@dataclass(frozen=True, slots=True)
class Downloaded:
    """What :func:`download_matches` did: matches seen, replays and output files written,
    replays already on disk (kept), and matches whose replays the site still holds (a
    rotation of duplicate deals whose other rotations are not all played: fetch again
    later)."""

    matches: int
    replays: int
    outputs: int
    kept: int
    held: int = 0
    faults: int = 0


def match_pages(client: Client, bot_id: int, *, finished: bool = False) -> Iterator[dict[str, Any]]:
    """The bot's matches, newest first, through every page."""
    query = f"/api/matches/?bot={bot_id}" + ("&status=finished" if finished else "")
    return client.pages(query)


def bot_seats(replay: Mapping[str, Any], bot_id: int) -> list[int]:
    """The seats of a site replay where the bot with id ``bot_id`` sat (the site adds
    ``bot`` to each uploaded bot's player entry)."""
    return [
        seat
        for seat, player in enumerate(replay.get("players", []))
        if isinstance(player, Mapping) and player.get("bot") == bot_id
    ]


def match_line(match: Mapping[str, Any], bot_id: int) -> str:
    """One line of ``cucumbers matches``: id, when, kind, game, status, the bot's place."""
    participants = list(match.get("participants", []))
    mine = next((p for p in participants if p.get("bot") == bot_id), None)
    others = [str(p.get("name")) for p in participants if p is not mine]
    when = str(match.get("finished_at") or match.get("created_at") or "")[:16].replace("T", " ")
    if mine is not None and mine.get("placement") is not None:
        mean = mine.get("mean_place")
        shown = f"{mean:.2f}" if isinstance(mean, int | float) else "?"
        place = (
            f"placed {mine['placement']} of {len(participants)} (mean place {shown},"
            f" {mine.get('wins', 0)} wins, {mine.get('faults', 0)} faults)"
        )
    else:
        place = "-"
    games = len(match.get("games", []))
    return (
        f"{match.get('id'):>6}  {when:16}  {match.get('kind', ''):10}  {match.get('game', '')}"
        f"  {match.get('status', '')}  {games} games  {place}  vs {', '.join(others)}"
    )


def who(seat: object, participant: object, name: object) -> str:
    """How the download's files name a bot of a game: by its seat in that game first, the
    number ``cucumbers repro --seat`` takes (a rotation seats a match's participant 0 at
    seat 4, say), then the match's participant index and the bot's name."""
    if seat is None:
        return f"participant {participant}: {name}"
    return f"seat {seat} (participant {participant}): {name}"


def participant_seats(
    replay: Mapping[str, Any], participants: list[Mapping[str, Any]]
) -> dict[int, int]:
    """Each uploaded participant's seat in this game's replay, by participant index: the
    one player entry with its bot and version (none when two seats share them)."""
    players = [p for p in replay.get("players", []) if isinstance(p, Mapping)]
    found = {}
    for participant in participants:
        if participant.get("bot") is None:
            continue
        seats = [
            seat
            for seat, player in enumerate(players)
            if player.get("bot") == participant.get("bot")
            and player.get("version") == participant.get("version")
        ]
        if len(seats) == 1 and isinstance(participant.get("index"), int):
            found[int(participant["index"])] = seats[0]
    return found


def faults_text(game: Mapping[str, Any], names: Mapping[Any, Any]) -> str:
    """The ``.faults.txt`` of a game of the match API: each fault, its link, its traceback."""
    parts = []
    for fault in game.get("faults", []):
        name = names.get(fault.get("participant"), "?")
        lines = [
            f"== {who(fault.get('seat'), fault.get('participant'), name)}: {fault.get('kind')}"
            f" in round {fault.get('round')}, trick {fault.get('trick')} ==",
            str(fault.get("detail", "")),
        ]
        if fault.get("viewer"):
            lines.append(f"the move in the viewer: {fault['viewer']}")
        if "traceback" in fault:
            lines.append(format_json(fault["traceback"]))
        if fault.get("seat") is not None:
            seat = fault["seat"]
            lines.append(f"again on your desk: cucumbers repro REPLAY --seat {seat} BOT.py")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n" if parts else ""


def download_matches(
    client: Client,
    bot_id: int,
    out: Path,
    *,
    on_game: Callable[[Path, list[int]], None] | None = None,
) -> Downloaded:
    """Fetch every finished match of the bot into ``out`` (layout in the module docstring).
    ``on_game(path, seats)`` is called for each replay written, with the bot's seats."""
    matches = replays = outputs = kept = held = faults = 0
    for match in match_pages(client, bot_id, finished=True):
        matches += 1
        if match.get("replays_held"):
            held += 1
            continue
        out.mkdir(parents=True, exist_ok=True)
        names = {p.get("index"): p.get("name") for p in match.get("participants", [])}
        for game in match.get("games", []):
            stem = f"match-{match['id']}-game-{game['number']}"
            path = out / f"{stem}.json.gz"
            replay: Mapping[str, Any] = {}
            if path.exists():
                kept += 1
                with suppress(ReplayFileError):
                    replay = load_replay(path)
            else:
                data = client.get_bytes(str(game["replay"]))
                try:
                    replay = loads_replay(data, str(game["replay"]))
                except ReplayFileError as error:
                    raise RequestFailed(str(error)) from None
                save_replay(replay, path)
                replays += 1
                if on_game is not None:
                    on_game(path, bot_seats(replay, bot_id))
            tails = game.get("outputs") or {}
            if tails:
                seats = participant_seats(replay, list(match.get("participants", [])))
                text = "\n".join(
                    f"== {who(seats.get(int(index)), index, names.get(int(index), '?'))} ==\n{tail}"
                    for index, tail in sorted(tails.items(), key=lambda item: int(item[0]))
                )
                (out / f"{stem}.output.txt").write_text(text, encoding="utf-8")
                outputs += 1
            if text := faults_text(game, names):
                (out / f"{stem}.faults.txt").write_text(text, encoding="utf-8")
                faults += 1
    return Downloaded(matches, replays, outputs, kept, held, faults)
