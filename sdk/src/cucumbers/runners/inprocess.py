"""The ``none`` runner: bots run inside this process. Fastest; for trusted code only, since
a bot can do anything this process can, and a move that runs over its time can only be
judged after it returns."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..bot import Bot
from ..faults import BotFault, FaultKind
from ..loader import BotLoadError, describe_exception, load_bot
from ..view import GameResult, GameStart, RoundResult, View
from .base import BotClient, BotSpec, Limits, Runner, RunnerName
from .output import OutputTail, TextTail

_NO_OP_HOOKS = {Bot.start_game, Bot.end_round, Bot.end_game}


class InProcessClient(BotClient):
    """A bot object in this process; its prints go to a bounded buffer, not the terminal."""

    def __init__(self, spec: BotSpec, limits: Limits) -> None:
        self.spec = spec
        self._tail = OutputTail(limits.output_bytes)
        self._stream = TextTail(self._tail)
        self._bot: Bot | None = None
        self._load_fault: BotFault | None = None
        self._hook_fault: BotFault | None = None
        try:
            self._bot = self._call(load_bot, spec.source)
        except BotLoadError as error:
            self._load_fault = BotFault(error.kind, str(error))

    def _call(self, function: Callable[..., Any], *args: object) -> Any:
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self._stream
        try:
            return function(*args)
        finally:
            sys.stdout, sys.stderr = saved

    def _hook(self, function: Callable[..., Any], argument: object) -> None:
        if getattr(function, "__func__", None) in _NO_OP_HOOKS:
            return  # skipping the base class's empty hooks saves time on every round
        try:
            self._call(function, argument)
        except (Exception, SystemExit) as error:
            if self._hook_fault is None:
                self._hook_fault = BotFault(FaultKind.CRASH, describe_exception(error))

    def start_game(self, game: GameStart) -> None:
        self._hook_fault = None
        if self._bot is not None:
            self._hook(self._bot.start_game, game)

    def request_move(self, view: View, timeout: float) -> object:
        if self._bot is None:
            assert self._load_fault is not None
            raise self._load_fault
        if self._hook_fault is not None:
            fault, self._hook_fault = self._hook_fault, None
            raise fault
        # Inlined rather than via _call: this runs for every move of every game.
        saved_out, saved_err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self._stream
        try:
            return self._bot.play(view)
        except (Exception, SystemExit) as error:
            raise BotFault(FaultKind.CRASH, describe_exception(error)) from None
        finally:
            sys.stdout, sys.stderr = saved_out, saved_err

    def end_round(self, result: RoundResult) -> None:
        if self._bot is not None:
            self._hook(self._bot.end_round, result)

    def end_game(self, result: GameResult) -> None:
        if self._bot is not None:
            self._hook(self._bot.end_game, result)

    def load_fault(self) -> BotFault | None:
        return self._load_fault

    def take_output(self) -> str:
        return self._tail.take()

    def close(self) -> None:
        self._bot = None


class InProcessRunner(Runner):
    """``--sandbox none``: every bot is an object in this process."""

    name = RunnerName.NONE

    def _start(self, specs: Sequence[BotSpec]) -> list[BotClient]:
        return [InProcessClient(spec, self.limits) for spec in specs]
