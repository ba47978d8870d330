"""Runners: where bots run during a match (see :mod:`cucumbers.runners.base`).

``none`` runs bots in this process (trusted code only); ``process`` runs each bot in a
subprocess. The arena registers ``docker`` with :func:`register_runner`.
"""

from __future__ import annotations

from .base import Limits, Runner
from .inprocess import InProcessRunner
from .process import ProcessRunner

#: Runner classes by their ``--sandbox`` name.
RUNNERS: dict[str, type[Runner]] = {
    InProcessRunner.name: InProcessRunner,
    ProcessRunner.name: ProcessRunner,
}


def register_runner(cls: type[Runner]) -> type[Runner]:
    """Make ``cls`` available under ``cls.name`` (usable as a class decorator)."""
    RUNNERS[cls.name] = cls
    return cls


def make_runner(name: str, limits: Limits | None = None) -> Runner:
    """A new runner by name. Raises ``ValueError`` naming the choices for an unknown name."""
    try:
        cls = RUNNERS[name]
    except KeyError:
        raise ValueError(
            f"unknown runner {name!r}; choose one of: {', '.join(sorted(RUNNERS))}"
        ) from None
    return cls(limits)
