"""Which sandbox runs uploaded bots: the ``SANDBOX`` setting, never a guess.

``docker`` (the default) runs every bot in the arena's Docker sandbox. When the engine
cannot be reached, matches end as infrastructure errors and are retried later: a bot is
never run unsandboxed because Docker failed (the sandbox fails closed). ``process`` runs
bots in the SDK's process runner, which is *not* isolated: local use only, chosen
explicitly (``make run`` chooses it when no engine answers), and every page then shows a
banner saying so.
"""

from __future__ import annotations

import logging
from enum import StrEnum

from django.conf import settings

from cucumbers.runners.base import RunnerName

logger = logging.getLogger(__name__)
DOCKER_PING_SECONDS = 2.0


class SandboxKind(StrEnum):
    """A runner name of the SDK's registry (``cucumbers.runners``), and a ``SANDBOX``
    value."""

    DOCKER = RunnerName.DOCKER.value
    PROCESS = RunnerName.PROCESS.value


def current_sandbox() -> SandboxKind:
    """The sandbox the ``SANDBOX`` setting names."""
    return SandboxKind(settings.SANDBOX)


def docker_engine_answers() -> bool:
    """Whether a Docker engine answers a ping within a couple of seconds (``make run``
    asks, to choose its sandbox; a worker never does, it only uses the one it is given)."""
    from arena.sandbox.container import engine_problem

    return engine_problem(DOCKER_PING_SECONDS) is None


_prepared: set[SandboxKind] = set()


def prepare_runner(kind: SandboxKind) -> str:
    """Make the runner ``kind`` usable in this process and return its registry name. For
    Docker: the arena's one preparation (engine, image, runner; once per process). Raises
    the arena's errors when Docker cannot be used."""
    if kind is SandboxKind.DOCKER and kind not in _prepared:
        from arena.sandbox.prepare import prepare_docker

        prepare_docker(DOCKER_PING_SECONDS)
    _prepared.add(kind)
    return kind.value
