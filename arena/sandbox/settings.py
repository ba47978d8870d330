"""What the Docker sandbox allows a bot: documented defaults, changeable through
``CUCUMBERS_SANDBOX_*`` environment variables read by :meth:`SandboxSettings.from_env`.

Every variable is optional; a bad value raises :class:`~arena.sandbox.errors.SettingsError`
naming the variable, so a mistyped limit stops a worker at start instead of silently running
bots with another one (healthchecks' ``envint`` habit). Sizes take bytes or a binary suffix:
``268435456``, ``256m``, ``256MiB``, ``1g``.

The network is not a setting: it is always ``none``. ``CUCUMBERS_SANDBOX_NETWORK`` may only
repeat that (anything else fails loudly rather than being ignored).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .errors import SettingsError
from .image import image_tag
from .seccomp import profile_json

MIB = 1024 * 1024
PREFIX = "CUCUMBERS_SANDBOX_"
#: The only network a bot's container ever gets: none at all (only its own loopback).
NETWORK = "none"

_SIZE = re.compile(r"(?i)^\s*(\d+)\s*(?:([kmg])(?:i?b)?|b)?\s*$")
_SIZE_FACTORS = {None: 1, "k": 1024, "m": MIB, "g": 1024 * MIB}
_USER = re.compile(r"^(\d+)(?::(\d+))?$")
_RUNTIME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: The OCI runtime of bot containers unless one is named.
DEFAULT_RUNTIME = "runc"
#: ``seccomp`` values: the sandbox's own profile, or the engine's default one.
ARENA_SECCOMP = "arena"
ENGINE_SECCOMP = "engine"
#: ``channel`` values: how the runner and a bot's host talk. ``socket``: over Unix sockets
#: in a directory bind-mounted into the container (the kernel carries every move);
#: ``attach``: over the container's stdin, stdout and stderr, attached through the engine
#: (every move through dockerd and the container's shim); ``auto``: ``socket`` wherever the
#: runtime passes a host's Unix socket into the container (:func:`arena.sandbox.container.
#: channel_for`), else ``attach``.
SOCKET_CHANNEL = "socket"
ATTACH_CHANNEL = "attach"
AUTO_CHANNEL = "auto"
CHANNELS = (AUTO_CHANNEL, SOCKET_CHANNEL, ATTACH_CHANNEL)


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """The limits of one bot's container (one per bot per match). Time limits are not here:
    they come from the match's :class:`~cucumbers.runners.base.Limits`, as for every runner.

    Attributes:
        image: the sandbox image (``CUCUMBERS_SANDBOX_IMAGE``; default: the image
            ``python -m arena image`` builds for this SDK version).
        memory_bytes: memory of the container, page cache and ``/tmp`` included, with no
            swap on top (``CUCUMBERS_SANDBOX_MEMORY``, default 256 MiB). Above it, the
            kernel kills the bot: a ``crash`` fault.
        cpus: CPU quota in CPUs (``CUCUMBERS_SANDBOX_CPUS``, default 1.0).
        pids: processes and threads the container may hold at once
            (``CUCUMBERS_SANDBOX_PIDS``, default 64).
        tmp_bytes: size of the writable ``/tmp`` (and of ``/dev/shm``); the rest of the
            filesystem is read-only (``CUCUMBERS_SANDBOX_TMP_SIZE``, default 16 MiB).
        open_files: open file descriptors per process (``CUCUMBERS_SANDBOX_NOFILE``,
            default 256).
        file_bytes: largest file a bot may write (``CUCUMBERS_SANDBOX_FILE_SIZE``, default
            16 MiB).
        log_bytes: container log kept by Docker; 0 keeps none (``--log-driver none``), as
            the bot's output already comes back through the runner's channel
            (``CUCUMBERS_SANDBOX_LOG_SIZE``, default 0).
        user: ``UID[:GID]`` inside the container, never root (``CUCUMBERS_SANDBOX_USER``,
            default ``65534:65534``, nobody).
        network: always ``none``; present so the choice is visible, not changeable.
        stop_grace_seconds: after ``quit``, time a container gets to end by itself before
            it is removed by force; also how long a bot whose channel closed gets to show
            its exit status (``CUCUMBERS_SANDBOX_STOP_GRACE``, default 2 s).
        staging_dir: where each bot's private copy of its file is made before it is mounted
            read-only at ``/bot``; must be a path the Docker engine sees as we do
            (``CUCUMBERS_SANDBOX_STAGING_DIR``, default: the system's temporary directory).
        runtime: the OCI runtime of every bot container, a name the engine knows
            (``CUCUMBERS_SANDBOX_RUNTIME``, default ``runc``; ``runsc`` for gVisor). A
            worker checks at start that the engine has it: never a silent fallback.
        seccomp: the system calls a bot may make (``CUCUMBERS_SANDBOX_SECCOMP``):
            ``arena`` (the default), the sandbox's own profile
            (:mod:`arena.sandbox.seccomp`, also in ``deploy/sandbox/seccomp.json``);
            ``engine``, the Docker engine's default profile; or the path of a JSON profile.
        channel: how moves travel between the runner and the bot's host
            (``CUCUMBERS_SANDBOX_CHANNEL``): ``auto`` (the default: ``socket`` where the
            runtime can pass it, else ``attach``), ``socket`` or ``attach`` (see
            :data:`SOCKET_CHANNEL`).
    """

    image: str = field(default_factory=image_tag)
    memory_bytes: int = 256 * MIB
    cpus: float = 1.0
    pids: int = 64
    tmp_bytes: int = 16 * MIB
    open_files: int = 256
    file_bytes: int = 16 * MIB
    log_bytes: int = 0
    user: str = "65534:65534"
    network: str = NETWORK
    stop_grace_seconds: float = 2.0
    staging_dir: str | None = None
    runtime: str = DEFAULT_RUNTIME
    seccomp: str = ARENA_SECCOMP
    channel: str = AUTO_CHANNEL

    def __post_init__(self) -> None:
        if self.network != NETWORK:
            raise SettingsError(f"the sandbox network is always {NETWORK!r}, not {self.network!r}")
        if not self.image.strip():
            raise SettingsError("the sandbox image name is empty")
        # Docker refuses less than 6 MiB; a Python interpreter needs far more to start.
        _check_int("memory_bytes", self.memory_bytes, 32 * MIB)
        _check_int("pids", self.pids, 8)  # the host, a few threads of numpy
        _check_int("tmp_bytes", self.tmp_bytes, 1)
        _check_int("open_files", self.open_files, 16)  # the interpreter's own files
        _check_int("file_bytes", self.file_bytes, 1)
        _check_int("log_bytes", self.log_bytes, 0)
        if not (isinstance(self.cpus, int | float) and math.isfinite(self.cpus) and self.cpus > 0):
            raise SettingsError(f"cpus must be a positive number, not {self.cpus!r}")
        grace = self.stop_grace_seconds
        if not (isinstance(grace, int | float) and math.isfinite(grace) and grace >= 0):
            raise SettingsError(f"stop_grace_seconds must be >= 0, not {grace!r}")
        match = _USER.match(self.user)
        if match is None:
            raise SettingsError(f"user must be UID or UID:GID (numbers), not {self.user!r}")
        if int(match.group(1)) == 0 or (match.group(2) is not None and int(match.group(2)) == 0):
            raise SettingsError("bots never run as root (uid or gid 0)")
        if not _RUNTIME.match(self.runtime):
            raise SettingsError(
                f"runtime must be a runtime's name, such as runc or runsc, not {self.runtime!r}"
            )
        if self.seccomp not in (ARENA_SECCOMP, ENGINE_SECCOMP) and not os.path.isfile(self.seccomp):
            raise SettingsError(
                f"seccomp must be {ARENA_SECCOMP!r}, {ENGINE_SECCOMP!r} or the path of a JSON"
                f" profile, not {self.seccomp!r} (no such file)"
            )

        if self.channel not in CHANNELS:
            raise SettingsError(
                f"channel must be one of {', '.join(CHANNELS)}, not {self.channel!r}"
            )

    def seccomp_profile(self) -> str | None:
        """The profile's JSON text for the container, or None for the engine's default."""
        if self.seccomp == ENGINE_SECCOMP:
            return None
        if self.seccomp == ARENA_SECCOMP:
            return profile_json()
        with open(self.seccomp, encoding="utf-8") as file:
            text = file.read()
        try:
            json.loads(text)
        except ValueError as error:
            raise SettingsError(
                f"the seccomp profile {self.seccomp} is not JSON: {error}"
            ) from None
        return text

    @property
    def threads(self) -> int:
        """Threads a numerical library should start: the CPU quota, rounded up."""
        return max(1, math.ceil(self.cpus))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SandboxSettings:
        """The defaults, changed by the ``CUCUMBERS_SANDBOX_*`` variables that are set.
        Raises :class:`SettingsError` for a bad value."""
        env = os.environ if environ is None else environ
        defaults = cls()
        network = env_str(env, "NETWORK", NETWORK)
        if network != NETWORK:
            raise SettingsError(
                f"{PREFIX}NETWORK={network!r}: the sandbox network cannot be changed"
            )
        return cls(
            image=env_str(env, "IMAGE", defaults.image),
            memory_bytes=env_size(env, "MEMORY", defaults.memory_bytes),
            cpus=env_float(env, "CPUS", defaults.cpus),
            pids=env_int(env, "PIDS", defaults.pids),
            tmp_bytes=env_size(env, "TMP_SIZE", defaults.tmp_bytes),
            open_files=env_int(env, "NOFILE", defaults.open_files),
            file_bytes=env_size(env, "FILE_SIZE", defaults.file_bytes),
            log_bytes=env_size(env, "LOG_SIZE", defaults.log_bytes),
            user=env_str(env, "USER", defaults.user),
            stop_grace_seconds=env_float(env, "STOP_GRACE", defaults.stop_grace_seconds),
            staging_dir=env_str(env, "STAGING_DIR", "") or None,
            runtime=env_str(env, "RUNTIME", defaults.runtime),
            seccomp=env_str(env, "SECCOMP", defaults.seccomp),
            channel=env_str(env, "CHANNEL", defaults.channel),
        )


def _check_int(name: str, value: object, minimum: int) -> None:
    if type(value) is not int or value < minimum:
        raise SettingsError(f"{name} must be an int >= {minimum}, not {value!r}")


def _raw(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(PREFIX + name)
    return None if value is None or not value.strip() else value.strip()


def env_str(env: Mapping[str, str], name: str, default: str) -> str:
    """``CUCUMBERS_SANDBOX_<name>``, or ``default`` when unset or blank."""
    value = _raw(env, name)
    return default if value is None else value


def env_int(env: Mapping[str, str], name: str, default: int) -> int:
    """``CUCUMBERS_SANDBOX_<name>`` as a whole number; a bad value raises."""
    value = _raw(env, name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise SettingsError(f"{PREFIX}{name}={value!r} is not a whole number") from None


def env_float(env: Mapping[str, str], name: str, default: float) -> float:
    """``CUCUMBERS_SANDBOX_<name>`` as a finite number; a bad value raises."""
    value = _raw(env, name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise SettingsError(f"{PREFIX}{name}={value!r} is not a finite number")
    return number


def env_size(env: Mapping[str, str], name: str, default: int) -> int:
    """``CUCUMBERS_SANDBOX_<name>`` as bytes (``16777216``, ``16m``, ``16MiB``, ``1g``)."""
    value = _raw(env, name)
    if value is None:
        return default
    match = _SIZE.match(value)
    if match is None:
        raise SettingsError(
            f"{PREFIX}{name}={value!r} is not a size (bytes, or a number with k, m or g)"
        )
    suffix = match.group(2).lower() if match.group(2) else None
    return int(match.group(1)) * _SIZE_FACTORS[suffix]
