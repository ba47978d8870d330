"""The runner's end of a host's protocol (:class:`~cucumbers.runners.hostproc.HostChannel`),
over a pair of pipes read and written by the test as the host would: what reaches the host,
in which order, and when."""

from __future__ import annotations

import json
import os
import select
from collections.abc import Iterator
from contextlib import suppress

import pytest

from cucumbers.engine import GameState
from cucumbers.games import FIVE_CUCUMBERS
from cucumbers.protocol import (
    EndGame,
    EndRound,
    MoveReply,
    MoveRequest,
    StartGame,
    encode,
)
from cucumbers.runners.clock import runner_clock
from cucumbers.runners.hostproc import HostChannel
from cucumbers.view import GameResult, GameStart, RoundResult, View

START = StartGame(GameStart("five-cucumbers", 0, 2, ("a", "b"), 1, 7, 1.0, 10.0))


class PipeHost(HostChannel):
    """A channel whose host is the test: it reads :attr:`host_in` and writes :attr:`host_out`."""

    def __init__(self) -> None:
        self.host_in, to_host = os.pipe()
        from_host, self.host_out = os.pipe()
        self.started = runner_clock()
        self._open_channel(to_host, from_host, None)

    def _end_input(self) -> None:
        os.close(self._in_fd)

    def exit_status(self) -> str | None:
        return None

    def close(self, grace: float) -> None:
        for fd in (self.host_in, self.host_out, self._out_fd, self._in_fd):
            with suppress(OSError):  # the input is closed already after quit
                os.close(fd)
        self._selector.close()

    def pending(self) -> bool:
        """Whether the host has something to read now."""
        return bool(select.select([self.host_in], [], [], 0)[0])

    def lines_for_host(self) -> list[dict[str, object]]:
        data = os.read(self.host_in, 1 << 20)
        return [json.loads(line) for line in data.splitlines()]


@pytest.fixture
def channel() -> Iterator[PipeHost]:
    host = PipeHost()
    yield host
    host.close(0)


def first_views() -> tuple[View, RoundResult]:
    state = GameState(FIVE_CUCUMBERS, 2, 3)
    assert state.to_move is not None
    view = state.view(state.to_move)
    rounds: list[RoundResult] = []
    state.run([lambda v: v.legal[0]] * 2, on_round=rounds.append)
    return view, rounds[0]


def test_a_held_notice_goes_with_the_next_message_in_order(channel: PipeHost) -> None:
    view, _ = first_views()
    channel.send(START, hold=True)
    assert not channel.pending()  # held: the host was not woken for it
    channel.send(MoveRequest(1, view))
    assert [line["type"] for line in channel.lines_for_host()] == ["start_game", "move"]


def test_a_held_notice_is_written_before_the_runner_waits(channel: PipeHost) -> None:
    view, result = first_views()
    channel.send(START)
    channel.send(MoveRequest(1, view))
    channel.lines_for_host()
    channel.send(EndRound(result), hold=True)
    assert not channel.pending()
    os.write(channel.host_out, encode(MoveReply(1, 3)))
    # Waiting for the host writes what is held first (the host may need it to answer).
    assert channel.next_message(runner_clock() + 5) == MoveReply(1, 3)
    assert [line["type"] for line in channel.lines_for_host()] == ["end_round"]


def test_held_notices_go_with_the_games_end_and_with_quit(channel: PipeHost) -> None:
    _, result = first_views()
    channel.send(START, hold=True)
    channel.send(EndRound(result), hold=True)
    channel.send(EndGame(GameResult(0, 1, (0, 1), (0, 4), False)))
    assert [line["type"] for line in channel.lines_for_host()] == [
        "start_game",
        "end_round",
        "end_game",
    ]
    channel.send(START, hold=True)
    channel.request_quit()
    assert [line["type"] for line in channel.lines_for_host()] == ["start_game", "quit"]
