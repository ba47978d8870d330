"""The bot host protocol's move request (protocol 2): the view travels as a JSON array, every
view the engine hands out comes back equal, and a malformed one is refused."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from cucumbers.engine import GameState
from cucumbers.faults import FaultKind
from cucumbers.games import FIVE_CUCUMBERS, GameRules
from cucumbers.protocol import (
    PROTOCOL_VERSION,
    MoveRequest,
    ProtocolError,
    Ready,
    StartGame,
    decode_host_message,
    decode_runner_message,
    encode,
)
from cucumbers.runners.local import host_command, host_environment
from cucumbers.view import GameStart, Play, Trick, View
from tests.sdk.enginekit import TABLE_IDS, TABLES


def every_view(rules: GameRules, n: int, seed: int) -> list[View]:
    """Every view of a seeded random game, with changing time banks and a few faults."""
    state = GameState(rules, n, seed)
    rng = random.Random(seed)
    views = []
    while (seat := state.to_move) is not None:
        views.append(state.view(seat, 0.5, round(rng.uniform(0, 10), 3)))
        if rng.random() < 0.01:
            state.fault(FaultKind.TIMEOUT, "slow")
        else:
            state.play(rng.choice(state.legal()))
    return views


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_view_of_a_game_survives_the_move_request(
    rules: GameRules, n: int, seed: int
) -> None:
    views = every_view(rules, n, 1000 * seed + n)
    assert len(views) > 20
    for number, view in enumerate(views, start=1):
        line = encode(MoveRequest(number, view))
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        data = json.loads(line)
        # The compact form: the fields in order, as an array, no keys.
        assert type(data["view"]) is list and len(data["view"]) == len(View._fields)
        message = decode_runner_message(line)
        assert message == MoveRequest(number, view)
        assert isinstance(message, MoveRequest)
        back = message.view
        assert type(back) is View
        assert all(type(play) is Play for play in back.trick)
        assert all(
            type(trick) is Trick and all(type(play) is Play for play in trick.plays)
            for trick in back.tricks
        )
        for field, value in zip(View._fields, back, strict=True):
            if isinstance(value, tuple):
                assert type(value) in (tuple, Play, Trick), field
        assert encode(message) == line


def compact_view() -> list[object]:
    state = GameState(FIVE_CUCUMBERS, 2, 5)
    state.play(state.legal()[0])
    state.play(state.legal()[0])
    state.play(state.legal()[0])  # a trick done, one begun
    assert state.to_move is not None
    view = state.view(state.to_move)
    data = json.loads(encode(MoveRequest(1, view)))["view"]
    assert isinstance(data, list) and data[5] and data[11]
    return data


def move_line(view: object) -> bytes:
    return json.dumps({"type": "move", "id": 1, "view": view}).encode() + b"\n"


def malformed_views() -> list[tuple[str, object]]:
    good = compact_view()
    keyed = dict(zip(View._fields, good, strict=True))  # protocol 1's form
    return [
        ("protocol 1's object", keyed),
        ("one field short", good[:-1]),
        ("one field more", [*good, 0]),
        ("a string", "view"),
        ("null", None),
        ("a trick of two fields", [*good[:11], [good[11][0][:2]], *good[12:]]),
        ("a trick that is a number", [*good[:11], [7], *good[12:]]),
        ("a play that is a number", [*good[:5], [3], *good[6:]]),
        ("a hand that is a number", [*good[:3], 7, *good[4:]]),
    ]


MALFORMED = malformed_views()


@pytest.mark.parametrize("view", [v for _, v in MALFORMED], ids=[n for n, _ in MALFORMED])
def test_a_malformed_view_is_a_protocol_error(view: object) -> None:
    with pytest.raises(ProtocolError, match="malformed move message"):
        decode_runner_message(move_line(view))


def test_the_host_exits_with_status_2_on_a_malformed_view(tmp_path: Path) -> None:
    start = GameStart("five-cucumbers", 0, 2, ("a", "b"), 1, 7, 1.0, 10.0)
    good = compact_view()
    lines = encode(StartGame(start)) + move_line(good) + move_line(good[:-1])
    host = subprocess.run(
        host_command("builtin:lowest"),
        input=lines,
        capture_output=True,
        env=host_environment(str(tmp_path)),
        cwd=tmp_path,
        timeout=60,
    )
    assert host.returncode == 2, host.stderr
    answers = [decode_host_message(line) for line in host.stdout.splitlines(keepends=True)]
    assert answers[0] == Ready(PROTOCOL_VERSION) == Ready(2)
    assert len(answers) == 2  # the good move was answered, the malformed one ended the host
    assert b"bad message from the runner: malformed move message" in host.stderr
