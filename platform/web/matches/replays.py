"""Replays in storage: gzip-compressed canonical JSON (``cucumbers.replay``), written through
Django's storage API (local files by default, any storage backend in production)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from django.core.files.base import ContentFile

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
        data = gzip_bytes(dumps_replay(replay))
        name = save_whole(replay_storage(), replay_name(match_id, number), ContentFile(data))
        self.names.append(name)
        return name, len(data)

    def save_outputs(self, match_id: int, number: int, outputs: Mapping[int, str]) -> str:
        data = gzip_bytes(json.dumps({str(k): v for k, v in outputs.items()}).encode())
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


def read_outputs(game: MatchGame) -> dict[int, str]:
    """A game's output tails by participant index (empty when none was kept)."""
    if not game.outputs:
        return {}
    with game.outputs.open("rb") as handle:
        data = json.loads(gzip.decompress(handle.read()))
    return {int(index): str(text) for index, text in data.items()}


def read_replay(game: MatchGame) -> dict[str, Any]:
    """A game's replay as a JSON object."""
    data = read_replay_bytes(game)
    return loads_replay(gzip.decompress(data), f"replay of {game}")
