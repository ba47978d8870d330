"""The ``process`` runner: one bot host subprocess per bot (``python -m cucumbers.host``).

Each bot runs in its own session with resource limits, a scrubbed environment and a private
temporary directory (its ``HOME``, ``TMPDIR`` and working directory); see
:mod:`cucumbers.runners.local`. The runner speaks :mod:`cucumbers.protocol` over the
host's stdin and stdout and keeps the tail of its stderr, where the host sends everything
the bot prints.

Faults:

- no ``ready`` within ``startup_seconds``: ``timeout``; a ``load_error``: its kind
  (``error`` or ``crash``); the process dies while loading: ``crash``;
- the process dies (``exited with status 3``, ``was killed by signal SIGSEGV``): ``crash``;
- a line that is not a protocol message, an oversized line, or a closed channel while the
  process lives: ``protocol``;
- no answer within the time the match loop gives: ``timeout``.

After a timeout or a protocol fault the bot's state is unknown, so all its processes are
killed; a bot that died or was killed is restarted (a new process and a fresh bot object,
its start-up again limited by ``startup_seconds``) at its next game. A bot that never became
ready is not restarted: it reports that fault at its first move of every game, as the
in-process runner does for a bot that does not load.

Limits: ``RLIMIT_CPU`` (over the life of one process), ``RLIMIT_AS``, ``RLIMIT_NPROC``,
``RLIMIT_FSIZE`` and no core files. ``RLIMIT_NPROC`` counts all processes of the user, not
only the bot's, and the kernel does not enforce it for root. This runner protects honest
bots from each other's mistakes; it is not a security boundary (the Docker runner is).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from contextlib import suppress

from ..faults import BotFault, FaultKind
from ..protocol import (
    PROTOCOL_VERSION,
    EndGame,
    EndRound,
    LoadError,
    MoveFault,
    MoveReply,
    MoveRequest,
    ProtocolError,
    Ready,
    StartGame,
)
from ..view import GameResult, GameStart, RoundResult, View
from . import reaper
from .base import BotClient, BotSpec, Limits, Runner, RunnerName
from .clock import runner_clock
from .hostproc import ChannelClosed, ChannelTimeout, HostChannel
from .local import LocalHost, belongs_to_live_host
from .output import OutputTail

#: Seconds a host gets to exit by itself after ``quit``, and a dead host to show its end.
EXIT_GRACE = 0.2


class ProcessClient(BotClient):
    """A bot in a host subprocess. Starting it does not wait for it: :meth:`wait_ready`
    does (the runner starts every bot first, then waits for all). Subclasses run the host
    elsewhere by overriding :meth:`_new_host`."""

    #: Seconds a host gets to exit by itself after ``quit``, and a dead host to show its end.
    exit_grace: float = EXIT_GRACE

    def __init__(self, spec: BotSpec, limits: Limits) -> None:
        self.spec = spec
        self._limits = limits
        self._tail = OutputTail(limits.output_bytes)
        self._lock = threading.Lock()  # the tail is filled by the drain thread
        self._host: HostChannel | None = None
        self._ready = False
        #: Why the bot never became ready; reported at its first move of every game.
        self._load_fault: BotFault | None = None
        self._last_id = 0
        #: What the bot printed during its last move (from the host's answer).
        self._move_output: tuple[str, ...] = ()
        self._spawn()

    def _spawn(self) -> None:
        try:
            self._host = self._new_host()
        except Exception as error:  # OSError, SubprocessError, no thread: the seat's loss
            self._load_fault = self._start_fault(error)

    def _start_fault(self, error: Exception) -> BotFault:
        """The ``error`` fault for a host that could not be started: the runner's failure
        (no process, no thread, a staged file gone), not the bot's."""
        return BotFault(FaultKind.ERROR, f"cannot start the bot host: {error}", infrastructure=True)

    def _new_host(self) -> HostChannel:
        """Start a host for this bot (raises ``OSError`` or ``SubprocessError``)."""
        return LocalHost(self.spec.source, self._limits, self._tail, self._lock)

    def wait_ready(self) -> None:
        """Wait for the host's ``ready``, at most ``startup_seconds`` after it was started;
        on failure, record the load fault and stop the host."""
        host = self._host
        if host is None or self._ready:
            return
        startup = self._limits.startup_seconds
        try:
            message = host.next_message(host.started + startup)
        except ChannelTimeout:
            fault = BotFault(FaultKind.TIMEOUT, f"not ready within {startup:g} s (start-up limit)")
        except ProtocolError as error:
            fault = BotFault(FaultKind.PROTOCOL, f"while loading: {error}")
        except ChannelClosed:
            fault = self._closed_fault(host, " while loading")
        else:
            if isinstance(message, Ready) and message.protocol == PROTOCOL_VERSION:
                self._ready = True
                return
            if isinstance(message, LoadError):
                fault = BotFault(message.kind, message.detail, traceback=message.traceback)
            elif isinstance(message, Ready):
                fault = BotFault(
                    FaultKind.PROTOCOL,
                    f"the host speaks protocol {message.protocol}, not {PROTOCOL_VERSION}",
                )
            else:
                fault = BotFault(FaultKind.PROTOCOL, "a move message before ready")
        self._load_fault = fault
        self._stop()

    def _closed_fault(self, host: HostChannel, when: str) -> BotFault:
        status = host.wait_exit(self.exit_grace)
        if status is None:
            return BotFault(FaultKind.PROTOCOL, f"the bot closed the protocol channel{when}")
        return BotFault(FaultKind.CRASH, f"the bot's process {status}{when}")

    def _stop(self) -> None:
        host, self._host = self._host, None
        self._ready = False
        if host is not None:
            host.close(grace=0)

    def start_game(self, game: GameStart) -> None:
        if self._load_fault is not None:
            return
        host = self._host
        if host is not None and (host.broken or host.exit_status() is not None):
            self._stop()  # it died after its last move; start afresh
            host = None
        if host is None:
            self._spawn()
            self.wait_ready()
            host = self._host
            if host is None:
                return
        # Held: it goes with the bot's first move, a wake-up of the host less. The hook's
        # time counts against that move, as it did for whoever moved first.
        host.send(StartGame(game), hold=True)

    def request_move(self, view: View, timeout: float) -> object:
        if self._load_fault is not None:
            raise self._load_fault
        host = self._host
        if host is None:
            raise BotFault(FaultKind.CRASH, "the bot's process is not running")
        deadline = runner_clock() + timeout
        self._move_output = ()
        self._last_id += 1
        number = self._last_id
        host.send(MoveRequest(number, view))
        try:
            while True:
                message = host.next_message(deadline)
                if not isinstance(message, MoveReply | MoveFault):
                    raise ProtocolError(f"an unexpected {type(message).__name__} message")
                if message.id != number:
                    continue  # a late answer to an earlier request
                self._move_output = message.output
                if isinstance(message, MoveFault):
                    raise BotFault(message.kind, message.detail, traceback=message.traceback)
                if message.unencodable is not None:
                    raise BotFault(FaultKind.ILLEGAL_MOVE, message.unencodable.describe(view.legal))
                return message.card
        except ChannelTimeout:
            self._stop()
            raise BotFault(
                FaultKind.TIMEOUT,
                f"no move within {timeout:.3g} s (the move limit and the rest of the time bank)",
            ) from None
        except ProtocolError as error:
            self._stop()
            raise BotFault(FaultKind.PROTOCOL, str(error)) from None
        except ChannelClosed:
            fault = self._closed_fault(host, "")
            self._stop()
            raise fault from None

    def end_round(self, result: RoundResult) -> None:
        if self._host is not None:
            self._host.send(EndRound(result), hold=True)  # with the bot's next message

    def end_game(self, result: GameResult) -> None:
        if self._host is not None:
            self._host.send(EndGame(result))

    def load_fault(self) -> BotFault | None:
        return self._load_fault

    def take_move_output(self) -> tuple[str, ...]:
        output, self._move_output = self._move_output, ()
        return output

    def take_output(self) -> str:
        if self._host is not None:
            self._host.drain_output()
        with self._lock:
            return self._tail.take()

    def request_quit(self) -> None:
        """Ask the host to quit without waiting (the runner then closes every client)."""
        if self._host is not None:
            self._host.request_quit()

    def close(self) -> None:
        host, self._host = self._host, None
        self._ready = False
        if host is not None:
            host.request_quit()
            host.close(grace=self.exit_grace)


def start_all(
    launch: Callable[[BotSpec], ProcessClient], specs: Sequence[BotSpec]
) -> list[BotClient]:
    """Launch every bot, then wait for each to be ready, so that a match's start-up costs
    about its slowest bot's rather than the sum. On failure, close those already launched."""
    clients: list[ProcessClient] = []
    try:
        for spec in specs:
            clients.append(launch(spec))
        for client in clients:
            client.wait_ready()
    except BaseException:
        for client in clients:
            client.close()
        raise
    return list(clients)


class ProcessRunner(Runner):
    """``--sandbox process``: one subprocess per bot, started in parallel.

    Creating one makes this process a child subreaper (Linux): orphaned descendants of
    any subprocess it starts are reparented here instead of to init. The runner kills and
    reaps those of its bots at :meth:`close`; other code of the same process that leaves
    orphans behind must reap them itself.
    """

    name = RunnerName.PROCESS

    def __init__(self, limits: Limits | None = None) -> None:
        super().__init__(limits)
        reaper.become_subreaper()
        # Children of ours that are not the bots'; the final sweep leaves them alone.
        self._children_before = reaper.children_of_self()

    def _start(self, specs: Sequence[BotSpec]) -> list[BotClient]:
        return start_all(lambda spec: ProcessClient(spec, self.limits), specs)

    def close(self) -> None:
        """Ask every host to quit, then stop each with everything it started, then kill
        any orphan a bot left behind. Never raises."""
        clients, self._clients = self._clients, []
        for client in clients:
            if isinstance(client, ProcessClient):
                with suppress(Exception):
                    client.request_quit()
        for client in clients:
            with suppress(Exception):
                client.close()
        reaper.sweep_orphans(self._children_before, spare=belongs_to_live_host)
