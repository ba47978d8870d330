"""Check that every bot of a match loads before the first game is played.

A bot that cannot load (a syntax error, no bot in the file, an unknown built-in) would
otherwise be "played" game after game as a load fault, which reads like a result rather
than the mistake it is. Each file is started once in the match's own runner (so a bot meant
for the sandbox is never executed outside it) and its load fault, if any, becomes a
:class:`BotNotUsable` with the same message ``cucumbers validate`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence

from .bots import BUILTINS
from .loader import BUILTIN_PREFIX
from .runners import make_runner
from .runners.base import BotSpec, Limits


class BotNotUsable(Exception):
    """A bot of the match cannot be loaded; the message names it and says why."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source} is not a usable bot: {reason}")
        self.source = source
        self.reason = reason


def builtin_problem(source: str) -> str | None:
    """Why ``builtin:NAME`` names no built-in bot (listing the names), or None."""
    name = source[len(BUILTIN_PREFIX) :]
    if name in BUILTINS:
        return None
    known = ", ".join(f"{BUILTIN_PREFIX}{known}" for known in BUILTINS)
    return f"no built-in bot {name!r}; choose one of: {known}"


def check_bots(sources: Sequence[str], sandbox: str, limits: Limits) -> None:
    """Raise :class:`BotNotUsable` for the first of ``sources`` that does not load.

    Built-ins are checked by name; each distinct file is started (and stopped) in the
    ``sandbox`` runner, within ``limits.startup_seconds``.
    """
    files: list[str] = []
    for source in dict.fromkeys(sources):
        if source.startswith(BUILTIN_PREFIX):
            problem = builtin_problem(source)
            if problem is not None:
                raise BotNotUsable(source, problem)
        else:
            files.append(source)
    if not files:
        return
    with make_runner(sandbox, limits) as runner:
        clients = runner.start([BotSpec.parse(source) for source in files])
        for source, client in zip(files, clients, strict=True):
            fault = client.load_fault()
            if fault is not None:
                raise BotNotUsable(source, fault.detail)
