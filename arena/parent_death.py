"""A child process that ends with its parent (Linux's parent-death signal, prctl(2)), so that
a supervisor killed with SIGKILL, or an OOM kill, leaves no process of its own running:
``deploy/run.py`` starts each of its children so, and a beat inside a worker
(``web/scheduler.py``) ends with the worker's main process."""

from __future__ import annotations

import ctypes
import os
import signal
from typing import Final

#: prctl(2)'s option: the signal this process gets when its parent dies.
PR_SET_PDEATHSIG: Final = 1


def die_with_parent(signum: int = signal.SIGTERM) -> bool:
    """Have the kernel send ``signum`` to this process when its parent dies; False where it
    cannot (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def end_with(parent: int, signum: int = signal.SIGTERM) -> None:
    """In a child of ``parent`` (its pid, read before it forked): ``signum`` when it dies,
    and an exit now if it died already (before the signal was set, nothing would come)."""
    die_with_parent(signum)
    if os.getppid() != parent:
        os._exit(1)
