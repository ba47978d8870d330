"""Making the Docker sandbox usable in this process: the one preparation shared by an arena
worker (before it takes a job) and the platform's foreground runs (``make run`` without a
worker, the ``ladder`` and ``tournament`` commands, tests)."""

from __future__ import annotations

import logging

from .container import engine_problem, runtime_problem
from .errors import SandboxError
from .image import ImageReport, ensure_image
from .runner import register

logger = logging.getLogger(__name__)


class SandboxUnavailable(SandboxError):
    """The engine does not answer, or cannot run the runtime asked for."""


def prepare_docker(ping_seconds: float, runtime: str | None = None) -> ImageReport:
    """Check that the engine answers within ``ping_seconds`` (and, with ``runtime``, that it
    can run containers with it), build the sandbox image unless it is up to date, and
    register the Docker runner (``cucumbers.runners.make_runner``). Raises
    :class:`SandboxUnavailable`, or :class:`~arena.sandbox.image.ImageError`."""
    problem = engine_problem(ping_seconds)
    if problem is None and runtime is not None:
        problem = runtime_problem(runtime, ping_seconds)
    if problem is not None:
        raise SandboxUnavailable(problem)
    report = ensure_image()
    logger.info("sandbox image %s ready (built: %s)", report.tag, report.built)
    register()
    return report
