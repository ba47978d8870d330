"""Which sandbox runs uploaded bots: Docker (isolated) when the arena's Docker runner is
installed and an engine answers, else the SDK's process runner (not isolated: local use
only, and every page shows a banner saying so). ``SANDBOX`` forces either."""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from enum import StrEnum

from django.conf import settings

logger = logging.getLogger(__name__)

#: How long a decision stays cached: the banner asks on every page view.
CACHE_SECONDS = 30.0
DOCKER_PING_SECONDS = 2.0


class SandboxKind(StrEnum):
    """A runner name of the SDK's registry (``cucumbers.runners``)."""

    DOCKER = "docker"
    PROCESS = "process"


class SandboxSetting(StrEnum):
    """The values of the ``SANDBOX`` setting."""

    AUTO = "auto"
    DOCKER = "docker"
    PROCESS = "process"


def docker_runner_installed() -> bool:
    """Whether the arena's Docker runner module exists (it registers the ``docker`` runner)."""
    try:
        return importlib.util.find_spec("arena.sandbox.runner") is not None
    except ImportError:
        return False


def docker_engine_answers() -> bool:
    """Whether a Docker engine answers a ping within a couple of seconds."""
    try:
        import docker

        client = docker.from_env(timeout=DOCKER_PING_SECONDS)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # any failure means "no engine here", whatever the library raised
        return False


def resolve_sandbox() -> SandboxKind:
    """The sandbox the ``SANDBOX`` setting asks for, probing Docker for ``auto``."""
    choice = SandboxSetting(settings.SANDBOX)
    if choice is SandboxSetting.PROCESS:
        return SandboxKind.PROCESS
    if choice is SandboxSetting.DOCKER:
        return SandboxKind.DOCKER
    if docker_runner_installed() and docker_engine_answers():
        return SandboxKind.DOCKER
    return SandboxKind.PROCESS


_lock = threading.Lock()
_cached: tuple[float, str, SandboxKind] | None = None


def current_sandbox() -> SandboxKind:
    """:func:`resolve_sandbox`, cached for :data:`CACHE_SECONDS` (per setting value)."""
    global _cached
    now = time.monotonic()
    with _lock:
        if _cached and _cached[1] == settings.SANDBOX and now - _cached[0] < CACHE_SECONDS:
            return _cached[2]
    kind = resolve_sandbox()
    with _lock:
        _cached = (now, settings.SANDBOX, kind)
    return kind


_prepared: set[SandboxKind] = set()


def prepare_runner(kind: SandboxKind) -> str:
    """Make the runner ``kind`` usable in this process and return its registry name. For
    Docker: register the arena's runner and build the sandbox image unless up to date (once
    per process). Raises the arena's errors when Docker cannot be used."""
    if kind is SandboxKind.DOCKER and kind not in _prepared:
        from arena.sandbox.image import ensure_image
        from arena.sandbox.runner import register

        register()
        report = ensure_image()
        logger.info("sandbox image %s ready (built: %s)", report.tag, report.built)
    _prepared.add(kind)
    return kind.value
