"""Finding and killing every process a bot started, so that no bot outlives its match.

Linux only (``/proc``); elsewhere the functions find nothing and only the process group is
killed. A bot process is recognised by any of:

- its process group or session (the host is started in a session of its own),
- descent from the host (a ``/proc`` walk of parent links),
- ``HOME=<the bot's private directory>`` in its environment, which survives ``setsid`` and
  double forks, unless the bot deliberately execs with another environment,
- being a child of ours that is new since the runner started and not in our session: with
  :func:`become_subreaper`, orphaned grandchildren are reparented to this process, and a
  bot can never move a process into our session.

The process runner is a guard against mistakes, not a security boundary: a bot that wants
to escape it can (that is what the Docker sandbox is for).
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass

PROC = "/proc"
PR_SET_CHILD_SUBREAPER = 36

_subreaper_pid = 0


@dataclass(frozen=True, slots=True)
class ProcInfo:
    """One line of the process table: ids from ``/proc/PID/stat`` and the start time (in
    clock ticks since boot), which tells a process from a later one with the same pid."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int

    @property
    def alive(self) -> bool:
        """Not a zombie (exited, waiting to be reaped) and not dead."""
        return self.state not in ("Z", "X", "x")


def read_proc(pid: int) -> ProcInfo | None:
    """The process ``pid``, or None if it does not exist (or there is no ``/proc``)."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as file:
            data = file.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses; the fields after its last ")" don't.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return ProcInfo(
            pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0].decode(), int(fields[19])
        )
    except (IndexError, ValueError):
        return None


def process_table() -> dict[int, ProcInfo]:
    """Every process we can see, by pid."""
    try:
        names = os.listdir(PROC)
    except OSError:
        return {}
    table = {}
    for name in names:
        if name.isdigit() and (info := read_proc(int(name))) is not None:
            table[info.pid] = info
    return table


def descendants(table: dict[int, ProcInfo], roots: Iterable[int]) -> set[int]:
    """The pids below ``roots`` in ``table`` (the roots themselves excluded)."""
    children: dict[int, list[int]] = {}
    for info in table.values():
        children.setdefault(info.ppid, []).append(info.pid)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        for child in children.get(stack.pop(), ()):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def has_environ_entry(pid: int, entry: bytes) -> bool:
    """Whether the environment ``pid`` started with holds exactly ``entry`` (``b"K=V"``)."""
    try:
        with open(f"{PROC}/{pid}/environ", "rb") as file:
            data = file.read()
    except OSError:
        return False
    return b"\0" + entry + b"\0" in b"\0" + data + b"\0"


def children_of_self() -> set[int]:
    """The pids of this process's children, zombies included."""
    me = os.getpid()
    return {info.pid for info in process_table().values() if info.ppid == me}


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux ``prctl``), so a
    bot's double-forked daemon is reparented here, where it can be found. Best effort; the
    setting is per process and not inherited across ``fork``. True if it is in effect."""
    global _subreaper_pid
    if _subreaper_pid == os.getpid():
        return True
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    _subreaper_pid = os.getpid()
    return True


def kill_bot_processes(
    host_pid: int, environ_entry: bytes, known: dict[int, int] | None = None, rounds: int = 20
) -> None:
    """SIGKILL the host's process group and session, its descendants, the processes of
    ``known`` (pid -> start time, e.g. descendants listed before the host was asked to
    quit) and theirs, and every process whose environment holds ``environ_entry``; then reap
    those that are our children, except the host (its ``Popen`` reaps it). Never raises."""
    me = os.getpid()
    known = known or {}
    seen: set[int] = set()
    for _ in range(rounds):
        with suppress(OSError):
            os.killpg(host_pid, signal.SIGKILL)
        table = process_table()
        roots = {host_pid}
        roots.update(p for p, start in known.items() if p in table and table[p].start == start)
        roots.update(
            info.pid
            for info in table.values()
            if info.pgid == host_pid
            or info.sid == host_pid
            or (info.alive and has_environ_entry(info.pid, environ_entry))
        )
        targets = (roots | descendants(table, roots)) & table.keys()
        targets.discard(me)
        seen |= targets
        live = [pid for pid in targets if table[pid].alive]
        if not live:
            break
        for pid in live:
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.002)  # let the kills land before looking again
    seen.discard(host_pid)
    reap(seen)


def reap(pids: Iterable[int], timeout: float = 1.0) -> None:
    """Wait for those of ``pids`` that are our children (killed or exiting), at most
    ``timeout`` seconds in all. Only these pids are waited for: ``waitpid(-1)`` would steal
    other code's children."""
    me = os.getpid()
    pending = {pid for pid in pids if (info := read_proc(pid)) is not None and info.ppid == me}
    deadline = time.monotonic() + timeout
    while pending:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            except OSError:
                done = pid
            if done:
                pending.discard(pid)
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(0.005)


def sweep_orphans(before: set[int], spare: Callable[[ProcInfo], bool]) -> None:
    """Kill and reap the children of this process that are new since ``before``, outside our
    session (so no ordinary subprocess of ours) and not spared by ``spare``: orphans of bot
    processes, reparented here by :func:`become_subreaper`. Never raises."""
    try:
        table = process_table()
        me = os.getpid()
        own_session = os.getsid(0)
        orphans = {
            info.pid
            for info in table.values()
            if info.ppid == me
            and info.pid not in before
            and info.sid != own_session
            and not spare(info)
        }
        targets = orphans | descendants(table, orphans)
        for pid in targets:
            if table[pid].alive:
                with suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        reap(targets)
    except Exception:  # clean-up is best effort and must not raise
        pass
