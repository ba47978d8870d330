"""An arena worker stopped at once: the matches in play are abandoned, never reported, and
their jobs go back to their queues to be played again.

Celery stops a worker in two ways. SIGTERM (a first Ctrl-C) is its *warm* shutdown: no new
job is taken and the matches in play end first, which is what ``docker compose stop`` waits
for (``stop_grace_period``, above the longest match). SIGQUIT (a second Ctrl-C) is its
*cold* shutdown: the worker sends SIGTERM to every pool process with a task in hand, then
closes its connection, which gives every job it took and did not acknowledge back to its
queue (kombu's restore at shutdown; acks late). ``make run`` stops its arena worker so
(``deploy/run.py``). A pool process that gets SIGTERM while it plays a match:

- removes the match's sandbox containers at once, by force (every container labelled with
  this process as its runner, :func:`arena.sandbox.reaper.reap_runner`): a bot in the middle
  of a long move is not waited for;
- unwinds the match with :class:`Abandoned`, which is no ``Exception``, so that neither the
  runner nor :func:`arena.playing.play_job` takes it for a fault of a bot or of the sandbox:
  the runner closes (the process runner's bots end with it), the staged files go, and
  nothing is sent to the platform;
- and exits. Its job comes back under the same attempt: the match is played again and
  recorded once, as for a worker that was killed (docs/arena.md, "A match's life").

Outside a match, SIGTERM ends a pool process as billiard has it end (a clean exit). Should
the abandoning hang (an engine that does not answer), the process ends on SIGALRM after
:data:`ABANDON_SECONDS`, and what it leaves is the reaper's when a worker starts.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from types import FrameType
from typing import Final, NoReturn

logger = logging.getLogger(__name__)

#: The longest a pool process takes to abandon its match before it is ended regardless.
ABANDON_SECONDS: Final = 5
#: The exit status of a pool process that abandoned its match.
EXIT_ABANDONED: Final = 3


class Abandoned(BaseException):
    """Raised in a pool process's match when its worker stops at once. A ``BaseException``,
    as ``KeyboardInterrupt`` is: it must pass every handler of bot and sandbox failures."""


@dataclass(frozen=True, slots=True)
class InPlay:
    """The match a pool process is playing, and how its sandbox is cleared at once."""

    match: int
    attempt: str
    #: Removes the match's containers by force; None when nothing outlives the runner's
    #: own close (the process runner).
    clear: Callable[[], object] | None


_in_play: InPlay | None = None


@contextmanager
def playing(match: int, attempt: str, clear: Callable[[], object] | None) -> Iterator[None]:
    """While this pool process plays ``match``, SIGTERM abandons it (:func:`abandon`).
    Outside a match, SIGTERM keeps billiard's meaning (a clean exit of the pool process),
    which billiard sets once the process has started, over any handler set before."""
    global _in_play
    _in_play = InPlay(match, attempt, clear)
    before = signal.signal(signal.SIGTERM, abandon)
    try:
        yield
    finally:
        if signal.getsignal(signal.SIGTERM) is abandon:  # not abandoned: ignored from then on
            signal.signal(signal.SIGTERM, before)
        _in_play = None


def abandon(signum: int, frame: FrameType | None) -> None:
    """SIGTERM in a pool process: exit now, or abandon the match in play (see the module)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the pool says it again as it ends
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(ABANDON_SECONDS)  # SIGALRM's own action ends the process, whatever hangs
    current = _in_play
    if current is None:  # between two matches: nothing to abandon
        leave(0)
    logger.warning(
        "match %s attempt %s: abandoned, the worker stops at once: its sandbox removed, no"
        " report; the job goes back to its queue, to be played again",
        current.match,
        current.attempt,
    )
    if current.clear is not None:
        try:
            current.clear()
        except Exception as error:  # the runner's close and the reaper remain
            logger.error("match %s: removing its containers failed: %s", current.match, error)
    raise Abandoned(f"match {current.match} abandoned: the worker stops")


def leave(status: int) -> NoReturn:
    """End this pool process now, its output written (no clean-up of Celery's to wait
    for: the worker that sent SIGTERM ends too)."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    for handler in logging.getLogger().handlers:
        with suppress(OSError, ValueError):
            handler.flush()
    os._exit(status)
