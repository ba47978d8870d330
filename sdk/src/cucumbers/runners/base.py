"""The runner interface: how the match loop talks to bots, wherever they run.

A :class:`Runner` starts one :class:`BotClient` per bot of a match; the match loop in
:mod:`cucumbers.match` only ever talks to clients. The SDK has the ``none`` runner (bots in
this process, trusted code only) and the ``process`` runner (one subprocess per bot); the
arena adds a Docker runner with the same interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import TracebackType
from typing import ClassVar

from ..faults import BotFault
from ..loader import BUILTIN_PREFIX
from ..view import GameResult, GameStart, RoundResult, View

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Time and resource limits for each bot. Every runner enforces the time limits; the
    resource limits apply where the runner can enforce them (``process``, ``docker``).

    Attributes:
        move_seconds: time for one move (default 1 s).
        bank_seconds: a per-game bank for overruns of ``move_seconds`` (default 10 s).
        startup_seconds: time to start and load the bot (default 10 s).
        output_bytes: bot output (stdout and stderr) kept per game; the rest is cut
            (default 4 KiB, the tail is kept).
        memory_bytes: address space of a bot process (default 1 GiB).
        cpu_seconds: CPU time of a bot process over a whole series (default 600 s).
        processes: processes and threads a bot may run (default 64; not enforced for root).
        file_bytes: largest file a bot may write (default 16 MiB).
    """

    move_seconds: float = 1.0
    bank_seconds: float = 10.0
    startup_seconds: float = 10.0
    output_bytes: int = 4096
    memory_bytes: int = 1024 * MIB
    cpu_seconds: int = 600
    processes: int = 64
    file_bytes: int = 16 * MIB

    def __post_init__(self) -> None:
        for name in ("move_seconds", "bank_seconds", "startup_seconds"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ValueError(f"{name} must be a number of seconds >= 0, not {value!r}")
        for name in ("output_bytes", "memory_bytes", "cpu_seconds", "processes", "file_bytes"):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise ValueError(f"{name} must be a positive int, not {value!r}")


@dataclass(frozen=True, slots=True)
class BotSpec:
    """Which bot to run: ``source`` is a ``.py`` path or ``builtin:NAME``; ``name`` is the
    display name used in replays and summaries."""

    source: str
    name: str

    @classmethod
    def parse(cls, source: str) -> BotSpec:
        """A spec named after its source (``builtin:random`` or the file's stem)."""
        if source.startswith(BUILTIN_PREFIX):
            return cls(source, source)
        stem = source.rsplit("/", 1)[-1].removesuffix(".py")
        return cls(source, stem)


class BotClient(ABC):
    """One running bot, seen from the match loop. Methods never raise for the bot's
    misbehaviour except :meth:`request_move`, which raises
    :class:`~cucumbers.faults.BotFault`. Notifications are fire-and-forget: an error in a
    hook surfaces as a fault at the bot's next move."""

    spec: BotSpec

    @abstractmethod
    def start_game(self, game: GameStart) -> None:
        """A game begins (restarts the bot first if it died in an earlier game)."""

    @abstractmethod
    def request_move(self, view: View, timeout: float) -> object:
        """The bot's answer to ``view`` within ``timeout`` seconds, unvalidated."""

    @abstractmethod
    def end_round(self, result: RoundResult) -> None:
        """A round ended."""

    @abstractmethod
    def end_game(self, result: GameResult) -> None:
        """The game ended."""

    @abstractmethod
    def take_output(self) -> str:
        """What the bot printed since the last call, cut to ``Limits.output_bytes``."""

    @abstractmethod
    def close(self) -> None:
        """Stop the bot and everything it started. Safe to call twice."""

    def load_fault(self) -> BotFault | None:
        """Why the bot could not be loaded once the runner has started it (its first move
        would raise this fault), or None. Runners whose bots cannot fail to load keep this."""
        return None


class RunnerName(StrEnum):
    """Every runner's ``--sandbox`` name, declared once: the SDK's two, and the arena's
    Docker sandbox (``arena.sandbox.runner`` registers it with ``register_runner``)."""

    #: In this process: trusted code only (the SDK's own tests and benchmarks).
    NONE = "none"
    #: Each bot in a subprocess: not isolated, for one's own desk.
    PROCESS = "process"
    #: Each bot in its own container: the platform's sandbox.
    DOCKER = "docker"


class Runner(ABC):
    """Starts bots for a match and cleans up after it. Use as a context manager."""

    #: The name used by ``--sandbox``.
    name: ClassVar[RunnerName]

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._clients: list[BotClient] = []

    @abstractmethod
    def _start(self, specs: Sequence[BotSpec]) -> list[BotClient]:
        """Start every bot, in parallel where the runner can."""

    def start(self, specs: Sequence[BotSpec]) -> list[BotClient]:
        """One client per spec, in order. A bot that fails to start still gets a client;
        its first move raises the fault (``error``, ``crash`` or ``timeout``)."""
        clients = self._start(specs)
        self._clients.extend(clients)
        return clients

    def close(self) -> None:
        """Close every client this runner started."""
        clients, self._clients = self._clients, []
        for client in clients:
            client.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
