"""How sandbox containers are named and labelled, and who their runner is.

Every container carries :data:`SANDBOX` and the identity of the runner process that started
it (pid, its start time and the host name), so that :mod:`arena.sandbox.reaper` can tell the
containers of a dead runner from those of a live one, and a match's own containers can be
found by :data:`MATCH`.
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from dataclasses import dataclass

from cucumbers.runners.reaper import read_proc

#: On every sandbox container.
SANDBOX = "org.cucumbers.sandbox"
#: The runner's pid, on the runner's host.
RUNNER_PID = "org.cucumbers.runner-pid"
#: The runner's start time (clock ticks since boot): tells it from a later process that
#: got the same pid.
RUNNER_START = "org.cucumbers.runner-start"
#: The host name of the runner's machine (a pid means nothing elsewhere).
RUNNER_HOST = "org.cucumbers.runner-host"
#: The match (one runner = one match).
MATCH = "org.cucumbers.match"
#: The bot's index in the match (its seat in the match's bot list; game seats reshuffle).
SEAT = "org.cucumbers.seat"

_NAME_UNSAFE = re.compile(r"[^a-zA-Z0-9_.-]+")


@dataclass(frozen=True, slots=True)
class RunnerIdentity:
    """The process that runs a match, as the labels record it."""

    pid: int
    start: int
    host: str

    @classmethod
    def current(cls) -> RunnerIdentity:
        """This process (computed afresh: a forked worker is another runner)."""
        pid = os.getpid()
        info = read_proc(pid)
        return cls(pid, info.start if info else 0, socket.gethostname())

    def labels(self) -> dict[str, str]:
        return {
            SANDBOX: "1",
            RUNNER_PID: str(self.pid),
            RUNNER_START: str(self.start),
            RUNNER_HOST: self.host,
        }


def new_match_id() -> str:
    """A short random match id, for containers of a runner that was not given one."""
    return secrets.token_hex(4)


def safe_name_part(text: str, limit: int = 40) -> str:
    """``text`` reduced to what Docker accepts in a container name."""
    return _NAME_UNSAFE.sub("-", text).strip("-.")[:limit] or "x"


def container_name(match_id: str, seat: int) -> str:
    """``cucumbers-<match>-<seat>-<random>``: unique even for a restarted bot."""
    return f"cucumbers-{safe_name_part(match_id)}-{seat}-{secrets.token_hex(3)}"


def runner_is_alive(labels: dict[str, str]) -> bool | None:
    """Whether the runner named by a container's labels still runs: None when that runner
    is on another host (we cannot know). Labels that name no valid runner count as dead."""
    if labels.get(RUNNER_HOST) != socket.gethostname():
        return None
    try:
        pid = int(labels[RUNNER_PID])
        start = int(labels.get(RUNNER_START, "0"))
    except (KeyError, ValueError):
        return False
    info = read_proc(pid)
    if info is None or not info.alive:
        return False
    return start == 0 or info.start == start
