"""The bot host protocol's move request: the view travels as a JSON array (protocol 2), each
later move of a game as the changes since the previous view (protocol 3); every view the
engine hands out comes back equal, and a malformed one is refused."""

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
    MAX_CARD_BITS,
    PROTOCOL_VERSION,
    EndRound,
    HostMessage,
    MoveReply,
    MoveRequest,
    ProtocolError,
    Ready,
    StartGame,
    ViewDeltas,
    decode_host_message,
    decode_runner_message,
    encode,
)
from cucumbers.protocol import _decode_host_line as decode_through_json
from cucumbers.protocol import _dump as dump
from cucumbers.runners.local import host_command, host_environment
from cucumbers.view import GameStart, Play, RoundResult, Trick, View
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


def seat_views(views: list[View], seat: int) -> list[View]:
    return [view for view in views if view.seat == seat]


@pytest.mark.parametrize(("rules", "n"), TABLES, ids=TABLE_IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_every_view_of_a_game_survives_as_changes(rules: GameRules, n: int, seed: int) -> None:
    views = every_view(rules, n, 1000 * seed + n)
    whole = changed = 0
    for seat in range(n):
        deltas = ViewDeltas()
        last: View | None = None
        for number, view in enumerate(seat_views(views, seat), start=1):
            line = deltas.encode(MoveRequest(number, view))
            data = json.loads(line)
            # The game's first move whole, every later one as changes.
            assert ("view" in data) is (last is None) and ("changes" in data) is (last is not None)
            message = decode_runner_message(line, last)
            assert isinstance(message, MoveRequest) and message.id == number
            back = message.view
            assert back == view and type(back) is View
            for field, value, sent in zip(View._fields, back, view, strict=True):
                assert type(value) is type(sent), field
            assert all(type(play) is Play for play in back.trick)
            assert all(
                type(trick) is Trick and all(type(play) is Play for play in trick.plays)
                for trick in back.tricks
            )
            whole += len(encode(MoveRequest(number, view)))
            changed += len(line)
            last = back
    assert changed < 0.8 * whole


def test_a_new_game_sends_its_first_view_whole() -> None:
    views = every_view(FIVE_CUCUMBERS, 2, 9)
    first, second = seat_views(views, 0)[:2]
    start = GameStart("five-cucumbers", 0, 2, ("a", "b"), 1, 7, 1.0, 10.0)
    deltas = ViewDeltas()
    deltas.encode(MoveRequest(1, first))
    assert "changes" in json.loads(deltas.encode(MoveRequest(2, second)))
    assert deltas.encode(StartGame(start)) == START
    assert (
        json.loads(deltas.encode(MoveRequest(3, second)))["view"]
        == json.loads(encode(MoveRequest(3, second)))["view"]
    )


def changes_line(changes: object, tricks: object = None) -> bytes:
    data = {"type": "move", "id": 2, "changes": changes}
    if tricks is not None:
        data["tricks"] = tricks
    return json.dumps(data).encode() + b"\n"


def test_changes_without_a_view_before_them_are_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="no view before them"):
        decode_runner_message(changes_line([[3, [1, 2]]]))


@pytest.mark.parametrize(
    ("changes", "tricks"),
    [
        ({"3": [1]}, None),
        ([[22, 1]], None),
        ([[-1, 1]], None),
        ([["hand", [1]]], None),
        ([[True, 1]], None),
        ([[3]], None),
        ([[3, 7]], None),
        ([[5, [3]]], None),
        ([], [[0, [[0, 1]]]]),
        ([], 7),
    ],
    ids=[
        "an object",
        "past the last field",
        "a negative index",
        "a name for an index",
        "true for an index",
        "a change without a value",
        "a hand that is a number",
        "a play that is a number",
        "a trick of two fields",
        "tricks that are a number",
    ],
)
def test_malformed_changes_are_a_protocol_error(changes: object, tricks: object) -> None:
    last = View.from_array(compact_view())
    with pytest.raises(ProtocolError, match="malformed move message"):
        decode_runner_message(changes_line(changes, tricks), last)


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


#: A game's start, as the runner writes it to a host.
START = encode(StartGame(GameStart("five-cucumbers", 0, 2, ("a", "b"), 1, 7, 1.0, 10.0)))


def run_host(
    tmp_path: Path, lines: bytes
) -> tuple[subprocess.CompletedProcess[bytes], list[HostMessage]]:
    """A real host of ``builtin:lowest`` fed ``lines``: how it ended, and its answers."""
    host = subprocess.run(
        host_command("builtin:lowest"),
        input=lines,
        capture_output=True,
        env=host_environment(str(tmp_path)),
        cwd=tmp_path,
        timeout=60,
    )
    answers = [decode_host_message(line) for line in host.stdout.splitlines(keepends=True)]
    return host, answers


def test_the_host_exits_with_status_2_on_a_malformed_view(tmp_path: Path) -> None:
    good = compact_view()
    host, answers = run_host(tmp_path, START + move_line(good) + move_line(good[:-1]))
    assert host.returncode == 2, host.stderr
    assert answers[0] == Ready(PROTOCOL_VERSION) == Ready(3)
    assert len(answers) == 2  # the good move was answered, the malformed one ended the host
    assert b"bad message from the runner: malformed move message" in host.stderr


def test_the_host_exits_with_status_2_on_changes_with_no_view_before_them(
    tmp_path: Path,
) -> None:
    good = compact_view()
    # The view of the first game does not carry over into the next.
    lines = START + move_line(good) + changes_line([]) + START + changes_line([])
    host, answers = run_host(tmp_path, lines)
    assert host.returncode == 2, host.stderr
    assert len(answers) == 3  # ready, and both moves of the first game
    assert b"bad message from the runner: a move's changes came with no view" in host.stderr


# -- the usual answer's short ways (written and read without the JSON codec) -----------------

INT_CARDS = [0, 1, 15, -1, -(10**17), 10**18 - 1, 10**18, 2**MAX_CARD_BITS - 1, -(2**200)]


@pytest.mark.parametrize("card", INT_CARDS)
def test_an_int_answer_is_written_as_the_json_encoder_writes_it(card: int) -> None:
    line = encode(MoveReply(41, card))
    assert line == dump({"type": "move", "id": 41, "card": card})
    assert decode_host_message(line) == MoveReply(41, card)


@pytest.mark.parametrize(
    "reply",
    [MoveReply(1, True), MoveReply(1, False), MoveReply(1, 7, output=("seven",))],
    ids=["true", "false", "with-output"],
)
def test_other_answers_take_the_json_encoder(reply: MoveReply) -> None:
    line = encode(reply)
    data = json.loads(line)
    assert data["card"] is reply.card or data["card"] == reply.card
    assert type(data["card"]) is type(reply.card)
    assert decode_host_message(line) == reply


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"move","id":7,"card":12}\n',
        b'{"type":"move","id":0,"card":-0}\n',  # JSON's -0 is the int 0
        b'{"type":"move","id":999999999999999999,"card":-999999999999999999}\n',
        b'{"type":"move","id":7,"card":12}',
        b'{"type":"move","id":7,"card":12}\n\n',
        b'{"type":"move","id":7,"card":12} \n',
        b'{"type": "move", "id": 7, "card": 12}\n',
        b'{"id":7,"type":"move","card":12}\n',
        b'{"type":"move","id":1000000000000000000,"card":10000000000000000000000}\n',
        b'{"type":"move","id":07,"card":12}\n',  # JSON has no leading zeros
        b'{"type":"move","id":7,"card":012}\n',
        b'{"type":"move","id":7,"card":+12}\n',
        b'{"type":"move","id":-7,"card":12}\n',
        b'{"type":"move","id":7,"card":12}\n{"type":"move","id":8,"card":1}\n',
        b'{"type":"move","id":7,"card":12,"card":13}\n',
        b'{"type":"move","id":7,"card":1.0}\n',
        b'{"type":"move","id":7,"card":1e3}\n',
        b'{"type":"move","id":7,"card":\xd9\xa3}\n',  # an Arabic-Indic digit
    ],
)
def test_every_answer_reads_as_the_json_decoder_reads_it(line: bytes) -> None:
    """The short way for the usual answer gives what the JSON decoder gives, or the same
    refusal: whatever a hostile host writes."""
    try:
        expected: HostMessage | str = decode_through_json(line)
    except ProtocolError as error:
        expected = f"refused: {error}"
    try:
        got: HostMessage | str = decode_host_message(line)
    except ProtocolError as error:
        got = f"refused: {error}"
    assert got == expected
    if isinstance(got, MoveReply):
        assert type(got.card) is type(json.loads(line.split(b"\n")[0])["card"])


def test_a_rounds_line_is_written_once_for_every_seat() -> None:
    results: list[object] = []
    state = GameState(FIVE_CUCUMBERS, 3, 5)
    state.run([lambda view: view.legal[0]] * 3, on_round=results.append)
    first, second = results[:2]
    assert isinstance(first, RoundResult) and isinstance(second, RoundResult)
    fresh = dump({"type": "end_round", "result": first.to_json()})
    assert encode(EndRound(first)) == fresh
    assert encode(EndRound(first)) is encode(EndRound(first))  # written once
    assert encode(EndRound(second)) == dump({"type": "end_round", "result": second.to_json()})
    assert encode(EndRound(first)) == fresh  # the cache follows the result, not the last line
    # An equal result that is another object is written anew, to the same line.
    twin = RoundResult.from_json(json.loads(fresh)["result"])
    assert twin is not first and encode(EndRound(twin)) == fresh
