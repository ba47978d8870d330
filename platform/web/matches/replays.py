"""Replays in storage: gzip-compressed canonical JSON (``cucumbers.replay``), written through
Django's storage API (local files by default, any storage backend in production).

Beside each replay, a private file (never served as a file) holds what only a bot's owner
reads: each participant's output tail, and the lines it printed during each of its moves
(``{"tails": {participant: text}, "moves": {participant: {"seat": s, "moves": [...]}}}``;
files written before the per-move lines are ``{participant: text}``, the tails alone).
The public replay holds no private key (``cucumbers.move_facts.public_replay``)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import QuerySet

from cucumbers.move_facts import public_replay
from cucumbers.move_output import MoveOutput
from cucumbers.replay import dumps_replay, gzip_bytes, loads_replay
from web.storage_files import save_whole

from .models import MatchGame, replay_storage


def replay_name(match_id: int, number: int) -> str:
    """Where a game's replay lives in the replay storage."""
    return f"{match_id // 1000:04d}/{match_id}/game-{number:03d}.json.gz"


def outputs_name(match_id: int, number: int) -> str:
    """Where a game's output tails live, beside its replay (never served as a file)."""
    return f"{match_id // 1000:04d}/{match_id}/game-{number:03d}.outputs.json.gz"


class StoredFiles:
    """Files written while a transaction is open, deleted again if it does not commit
    (a replay is stored only when its row is), and a write that fails leaves nothing
    (:func:`web.storage_files.save_whole`). Use around ``transaction.atomic()``."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def save_replay(self, match_id: int, number: int, replay: Mapping[str, Any]) -> tuple[str, int]:
        data = gzip_bytes(dumps_replay(public_replay(replay)))
        name = save_whole(replay_storage(), replay_name(match_id, number), ContentFile(data))
        self.names.append(name)
        return name, len(data)

    def save_outputs(
        self,
        match_id: int,
        number: int,
        outputs: Mapping[int, str],
        moves: Mapping[int, PrivateMoves] | None = None,
    ) -> str:
        """The private file: tails and, by participant, its seat and its moves' lines."""
        layout = {
            "tails": {str(k): v for k, v in outputs.items()},
            "moves": {
                str(k): {"seat": seat, "moves": [move.to_json() for move in lines]}
                for k, (seat, lines) in (moves or {}).items()
                if lines
            },
        }
        data = gzip_bytes(json.dumps(layout).encode())
        name = save_whole(replay_storage(), outputs_name(match_id, number), ContentFile(data))
        self.names.append(name)
        return name

    def __enter__(self) -> StoredFiles:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            storage = replay_storage()
            for name in self.names:
                storage.delete(name)


def read_replay_bytes(game: MatchGame) -> bytes:
    """The stored (gzip-compressed) bytes of a game's replay."""
    with game.replay.open("rb") as handle:
        data: bytes = handle.read()
        return data


#: A participant's seat in a game and the lines it printed during each of its moves.
PrivateMoves = tuple[int, tuple[MoveOutput, ...]]


def _read_private(game: MatchGame) -> dict[str, Any]:
    if not game.outputs:
        return {}
    with game.outputs.open("rb") as handle:
        data: dict[str, Any] = json.loads(gzip.decompress(handle.read()))
    return data if "tails" in data else {"tails": data}  # the layout before per-move lines


def read_outputs(game: MatchGame) -> dict[int, str]:
    """A game's output tails by participant index (empty when none was kept)."""
    tails = _read_private(game).get("tails", {})
    return {int(index): str(text) for index, text in tails.items()}


def read_move_output(game: MatchGame) -> dict[int, PrivateMoves]:
    """By participant index, its seat and the lines it printed during each of its moves."""
    moves = _read_private(game).get("moves", {})
    return {
        int(index): (int(entry["seat"]), tuple(MoveOutput.from_json(m) for m in entry["moves"]))
        for index, entry in moves.items()
    }


def read_replay(game: MatchGame) -> dict[str, Any]:
    """A game's replay as a JSON object."""
    data = read_replay_bytes(game)
    return loads_replay(gzip.decompress(data), f"replay of {game}")


def delete_files_on_commit(games: QuerySet[MatchGame]) -> None:
    """Delete the stored files of ``games`` (replays and private outputs) once the current
    transaction commits: their rows are being deleted in it (a requeued void set)."""
    names = [name for pair in games.values_list("replay", "outputs") for name in pair if name]

    def remove() -> None:
        storage = replay_storage()
        for name in names:
            storage.delete(name)

    transaction.on_commit(remove, robust=True)
