"""The process runner's bot host: ``python -m cucumbers.host SOURCE`` as a local
subprocess with resource limits, a scrubbed environment and a private directory (its home,
temporary and working directory). Stopping it kills every process the bot started
(:mod:`cucumbers.runners.reaper`).
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from ..loader import BUILTIN_PREFIX
from . import reaper
from .base import Limits
from .hostproc import HostProcess, Launch, remove_tree
from .output import OutputTail

#: The directory that holds the ``cucumbers`` package: the host's ``PYTHONPATH``, so the
#: host runs from this very SDK, installed or not.
PACKAGE_PARENT = str(Path(__file__).resolve().parent.parent.parent)

# Hosts alive in this process, by pid, with their environment marker: a runner's final
# sweep for orphans must spare the processes of other runners' bots.
_LIVE_HOSTS: dict[int, bytes] = {}
os.register_at_fork(after_in_child=_LIVE_HOSTS.clear)


def belongs_to_live_host(info: reaper.ProcInfo) -> bool:
    """Whether ``info`` is a live host of this process or one of its bot's processes."""
    live = dict(_LIVE_HOSTS)
    if info.pid in live or info.pgid in live or info.sid in live:
        return True
    return any(reaper.has_environ_entry(info.pid, marker) for marker in live.values())


def host_environment(home: str) -> dict[str, str]:
    """The host's whole environment: nothing leaks from ours (tokens, keys, paths)."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONPATH": PACKAGE_PARENT,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
    }


def host_command(source: str) -> list[str]:
    """The command that runs a host for ``source`` (a file path or ``builtin:NAME``)."""
    if not source.startswith(BUILTIN_PREFIX):
        source = os.path.abspath(source)  # the host runs in its own directory
    # -u: unbuffered, so output is in the pipe before the answer that follows it;
    # -P: the host's working directory (the bot's) is not put on sys.path.
    return [sys.executable, "-u", "-P", "-m", "cucumbers.host", source]


def resource_limits(limits: Limits) -> list[tuple[int, tuple[int, int]]]:
    """``setrlimit`` arguments for a host, lowered to our own hard limits where those are
    lower (an unprivileged process cannot raise them, and the spawn would fail)."""
    wanted = [
        # The hard CPU limit one second later: SIGXCPU first, then SIGKILL if ignored.
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
        (resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes),
        (resource.RLIMIT_NPROC, limits.processes, limits.processes),
        (resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
        (resource.RLIMIT_CORE, 0, 0),
    ]
    result = []
    for which, soft, hard in wanted:
        ceiling = resource.getrlimit(which)[1]
        if ceiling != resource.RLIM_INFINITY:
            hard = min(hard, ceiling)
            soft = min(soft, hard)
        result.append((which, (soft, hard)))
    return result


def _child_setup(limits: list[tuple[int, tuple[int, int]]]) -> Callable[[], None]:
    # Runs in the forked child before exec: only a few system calls, nothing that locks.
    setrlimit = resource.setrlimit

    def setup() -> None:
        for which, values in limits:
            setrlimit(which, values)

    return setup


class LocalHost(HostProcess):
    """The process runner's host: ``python -m cucumbers.host SOURCE`` with resource limits,
    a scrubbed environment and a private directory (its home, temporary and working
    directory). Stopping it kills every process the bot started (:mod:`.reaper`)."""

    def __init__(self, source: str, limits: Limits, tail: OutputTail, lock: threading.Lock):
        self.home = tempfile.mkdtemp(prefix="cucumbers-bot-")
        #: ``HOME=...`` in the environment of the host and everything it starts.
        self.marker = b"HOME=" + os.fsencode(self.home)
        self._known: dict[int, int] = {}
        launch = Launch(
            host_command(source),
            host_environment(self.home),
            cwd=self.home,
            preexec=_child_setup(resource_limits(limits)),
        )
        super().__init__(launch, tail, lock)

    def _on_started(self) -> None:
        _LIVE_HOSTS[self.pid] = self.marker

    def _before_quit(self) -> None:
        # The host's descendants are orphaned once it exits: note them while we can.
        table = reaper.process_table()
        below = reaper.descendants(table, [self.pid])
        self._known = {pid: table[pid].start for pid in below if pid in table}

    def _kill(self) -> None:
        reaper.kill_bot_processes(self.pid, self.marker, self._known)

    def _release(self) -> None:
        _LIVE_HOSTS.pop(self.pid, None)
        remove_tree(self.home)
