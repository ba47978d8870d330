"""Faults: a bot's misbehaviour recorded as a game result (``rules.md``, Faults)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .tracebacks import BotTraceback

#: Longest fault detail kept, in characters (``replay-format.md``).
MAX_DETAIL = 500


class FaultKind(StrEnum):
    """Why a seat faulted.

    - ``timeout``: no answer within the move limit plus the remaining time bank, or no
      start-up within the start-up limit.
    - ``illegal_move``: the answer was not exactly an ``int`` in ``view.legal``.
    - ``crash``: the bot raised an exception, or its process exited or was killed.
    - ``protocol``: the bot's process broke the line-delimited JSON protocol.
    - ``error``: the bot could not be loaded or started (syntax error, no bot found,
      sandbox failure for that seat).
    """

    TIMEOUT = "timeout"
    ILLEGAL_MOVE = "illegal_move"
    CRASH = "crash"
    PROTOCOL = "protocol"
    ERROR = "error"


def short_detail(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` on one line, cut to at most ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


#: How much of a wrong value a message quotes.
QUOTE_LIMIT = 40


def clipped(shown: str, limit: int = QUOTE_LIMIT) -> str:
    """A wrong value's spelling as a message quotes it: at most ``limit`` characters, the
    cut marked by "..." (a bot may answer with a megabyte)."""
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def not_an_int_detail(shown: str, type_name: str, legal: tuple[int, ...]) -> str:
    """The ``illegal_move`` detail for an answer that is not an ``int``, given its repr and
    its type's name: one wording whether the engine or the runner saw it."""
    return f"returned {clipped(shown)} ({type_name}), not an int; legal: {list(legal)}"


@dataclass(frozen=True, slots=True)
class Fault:
    """One recorded fault: the seat, where it happened (round and trick, from 1) and why.

    ``infrastructure`` is True when what failed was not the bot but what runs it (the
    sandbox could not start it, its engine went away): a platform retries such a game
    instead of charging the bot. It is not part of a replay (a replay records a game that
    counted, and a game with such a fault does not).

    ``traceback``: the bot's own frames when its code raised (:mod:`cucumbers.tracebacks`);
    its owner's only, so never in :meth:`to_json` (a public replay's fault).
    """

    seat: int
    round: int
    trick: int
    kind: FaultKind
    detail: str
    infrastructure: bool = False
    traceback: BotTraceback | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "round": self.round,
            "trick": self.trick,
            "kind": self.kind.value,
            "detail": self.detail,
        }


class BotFault(Exception):
    """Raised by a bot client when the bot it runs misbehaved, or could not be run at all
    (``infrastructure=True``: see :class:`Fault`); the match loop turns it into a
    :class:`Fault` for that seat. Never escapes the match loop."""

    def __init__(
        self,
        kind: FaultKind,
        detail: str,
        *,
        infrastructure: bool = False,
        traceback: BotTraceback | None = None,
    ) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = short_detail(detail)
        self.infrastructure = infrastructure
        self.traceback = traceback
