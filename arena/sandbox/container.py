"""One bot's container: created through the Docker API with the whole sandbox in its
configuration (:func:`container_config`), then started and attached by
``docker start --attach --interactive`` as the host subprocess of the SDK's
:class:`~cucumbers.runners.hostproc.HostProcess`, so the protocol pipes, deadlines and output
capture are exactly the process runner's; only starting and stopping differ.

Why not ``docker run``: its CLI cannot create a container with networking disabled, only one
on the ``none`` network, for which Docker 20.10 runs a prestart hook (a whole ``dockerd``
re-executed to set up the network sandbox) in every container. A container created with
``NetworkDisabled`` gets the same empty network namespace (its own loopback, nothing else)
without that hook: about 100 ms of CPU less per bot (see docs/sandbox.md).

The container runs the image's entry point (``python3 -m cucumbers.host``) on the bot's
file, which is copied into a private directory of its own (file 0444, directory 0555) and
mounted read-only at ``/bot``; a built-in bot gets no mount at all. Nothing of our
environment enters the container; the ``docker`` client itself gets only what it needs to
reach the engine.

Stopping: after ``quit`` the host exits, ``AutoRemove`` removes the container and the
client exits once it is removed. Otherwise the container is removed by force through the
Docker API, and the client is killed if it still lingers. Should this process die, the
client sees the end of its input and closes the container's; a host that is reading exits
and the engine removes it. A container whose bot is stuck stays:
:mod:`arena.sandbox.reaper` removes it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import docker
from docker.errors import APIError, DockerException, NotFound
from docker.types import ContainerConfig, HostConfig, LogConfig, Mount, Ulimit

from cucumbers.runners.hostproc import HostProcess, Launch, describe_exit, remove_tree
from cucumbers.runners.output import OutputTail

from . import labels
from .settings import SandboxSettings

#: How the ``docker`` client starts the lines it prints when the engine refused to start the
#: container or could not be reached (it then exits with status 1).
DOCKER_REFUSALS = ("Error response from daemon:", "Cannot connect to the Docker daemon")
#: Thread-count variables of numerical libraries, set to the CPU quota in the container.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: Where the bot's directory appears inside the container.
BOT_DIR = "/bot"
#: Variables of ours the ``docker`` client may need to reach the engine (none of them is
#: passed into a container).
CLIENT_VARIABLES = (
    "PATH",
    "HOME",
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "DOCKER_CONTEXT",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
)
#: Seconds an API call to the engine may take before we give up on it.
API_TIMEOUT = 15
#: After a forced removal, time the ``docker`` client gets to notice and exit.
CLIENT_EXIT_SECONDS = 2.0

_SAFE_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.py$")
#: Staged bot directories are named ``<prefix><host>-<runner pid>-<runner start>-<random>``
#: (``<host>``: a short hash of the host name, should the folder be shared).
STAGING_PREFIX = "cucumbers-sandbox-"
_STAGED = re.compile(rf"^{STAGING_PREFIX}([0-9a-f]{{8}})-(\d+)-(\d+)-[^/]+$")


def engine_client() -> docker.DockerClient:
    """A client of the local Docker engine (raises ``DockerException`` without one)."""
    return docker.from_env(timeout=API_TIMEOUT)


def remove_container(client: docker.DockerClient, name: str) -> bool:
    """Kill and remove the container ``name``; False if it was not there. Raises
    ``DockerException`` or ``OSError`` when the engine fails."""
    try:
        client.api.remove_container(name, force=True)
    except NotFound:
        return False
    except APIError as error:
        if error.status_code == 409:  # its removal is already under way (``--rm``)
            return True
        raise
    return True


@dataclass(frozen=True, slots=True)
class Seat:
    """Where and how one bot of a match runs: the engine, the settings, and the labels that
    tie its containers to this runner and match."""

    client: docker.DockerClient
    settings: SandboxSettings
    match_id: str
    index: int
    runner: labels.RunnerIdentity

    def labels(self) -> dict[str, str]:
        return {
            **self.runner.labels(),
            labels.MATCH: self.match_id,
            labels.SEAT: str(self.index),
        }


def host_tag() -> str:
    """This host, in the names of staged directories."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def staging_owner(name: str) -> tuple[int, int] | None:
    """The runner (pid, start time) of this host that staged the directory ``name``, if it
    is one."""
    match = _STAGED.match(name)
    if match is None or match.group(1) != host_tag():
        return None
    return int(match.group(2)), int(match.group(3))


def client_environment() -> dict[str, str]:
    """The ``docker`` client's environment: only what reaches the engine."""
    env = {name: os.environ[name] for name in CLIENT_VARIABLES if name in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    return env


class SandboxRefused(Exception):
    """The engine refused to create a bot's container; the message is Docker's reason."""


def container_config(
    seat: Seat, bot_dir: str | None, argument: str, api_version: str
) -> dict[str, object]:
    """The Engine API's create body for one bot: the whole sandbox in its settings.

    ``OpenStdin`` with ``StdinOnce`` is ``docker run -i``: the container's input closes when
    its client's does. ``NetworkDisabled`` on the ``none`` network mode: an empty network
    namespace of its own, without the network set-up hook (module docstring).
    """
    s = seat.settings
    if s.log_bytes:
        log = LogConfig(type="json-file", config={"max-size": str(s.log_bytes), "max-file": "1"})
    else:
        log = LogConfig(type="none")
    mounts = []
    if bot_dir is not None:
        mounts.append(Mount(BOT_DIR, bot_dir, type="bind", read_only=True))
    host = HostConfig(
        api_version,
        network_mode=s.network,
        mem_limit=s.memory_bytes,
        memswap_limit=s.memory_bytes,  # equal to the memory: no swap at all
        nano_cpus=round(s.cpus * 1e9),
        pids_limit=s.pids,
        read_only=True,
        tmpfs={"/tmp": f"rw,nosuid,nodev,size={s.tmp_bytes},mode=1777"},
        ipc_mode="private",
        shm_size=s.tmp_bytes,
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        ulimits=[
            Ulimit(name="nofile", soft=s.open_files, hard=s.open_files),
            Ulimit(name="fsize", soft=s.file_bytes, hard=s.file_bytes),
            Ulimit(name="core", soft=0, hard=0),
        ],
        log_config=log,
        mounts=mounts,
        auto_remove=True,
    )
    # Harmless variables only: numerical libraries start one thread per CPU they see (the
    # machine's, not the quota), which the pids limit would turn into a crash; the hash
    # seed and the safe path match the process runner's host.
    environment = {variable: str(s.threads) for variable in THREAD_VARIABLES}
    environment |= {"PYTHONHASHSEED": "0", "PYTHONSAFEPATH": "1"}
    config = ContainerConfig(
        api_version,
        s.image,
        [argument],
        user=s.user,
        stdin_open=True,
        environment=environment,
        network_disabled=True,
        labels=seat.labels(),
        host_config=host,
    )
    config.update(StdinOnce=True, AttachStdin=True, AttachStdout=True, AttachStderr=True)
    return dict(config)


def create_container(seat: Seat, name: str, bot_dir: str | None, argument: str) -> None:
    """Create the bot's container ``name`` (not started). Raises :class:`SandboxRefused`
    with Docker's reason, or ``DockerException``/``OSError`` when the engine fails."""
    api = seat.client.api
    config = container_config(seat, bot_dir, argument, api.api_version)
    try:
        api.create_container_from_config(config, name)
    except APIError as error:  # a bad setting, a missing image, a name in use...
        raise SandboxRefused(str(error.explanation or error)) from error


def attach_command(name: str) -> list[str]:
    """Start the container ``name`` with our stdin, stdout and stderr attached to it."""
    return ["docker", "start", "--attach", "--interactive", name]


def stage_bot(source: str, seat: Seat) -> tuple[str, str]:
    """Copy the bot's file into a new private directory; (directory, path inside the
    container). The copy keeps the file's name (fault details name it), unless the name
    is unusual. The directory's name carries the runner's identity, so that the reaper can
    remove it should the runner die (see :func:`staging_owner`)."""
    name = Path(source).name
    if not _SAFE_FILE.match(name):
        name = "bot.py"
    owner = f"{STAGING_PREFIX}{host_tag()}-{seat.runner.pid}-{seat.runner.start}-"
    directory = tempfile.mkdtemp(prefix=owner, dir=seat.settings.staging_dir)
    try:
        if "," in directory:  # --mount's fields are comma-separated
            raise OSError(f"the staging directory {directory!r} holds a comma")
        target = os.path.join(directory, name)
        with open(source, "rb") as original, open(target, "xb") as copy:
            shutil.copyfileobj(original, copy)
        os.chmod(target, 0o444)
        os.chmod(directory, 0o555)  # readable by the container's user, writable by nobody
    except BaseException:
        remove_tree(directory)
        raise
    return directory, f"{BOT_DIR}/{name}"


class DockerHost(HostProcess):
    """A bot host in a container of its own. Raises ``OSError`` (e.g. an unreadable bot
    file) or ``SubprocessError`` when it cannot be started."""

    def __init__(
        self,
        source: str,
        seat: Seat,
        tail: OutputTail,
        lock: threading.Lock,
    ) -> None:
        self.seat = seat
        self.name = labels.container_name(seat.match_id, seat.index)
        self._tail = tail
        self._lock = lock
        self._bot_dir: str | None = None
        argument = source
        if not source.startswith("builtin:"):
            self._bot_dir, argument = stage_bot(source, seat)
        self._created = time.time()
        try:
            create_container(seat, self.name, self._bot_dir, argument)
        except BaseException:
            self._release()
            raise
        launch = Launch(attach_command(self.name), client_environment(), cwd="/")
        super().__init__(launch, tail, lock)

    def refusal(self) -> str | None:
        """Why the engine refused to start the container, if it did: the ``docker`` client
        exited with status 1 and the engine logged no ``start`` of the container. Docker's
        reason is the client's last line among :data:`DOCKER_REFUSALS` (taken out of the
        bot's output). A bot cannot fake a refusal: once its container started, it is
        the bot's exit."""
        try:
            result = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except OSError:  # reaped already: its status is gone
            return None
        if result is None or (result.si_code, result.si_status) != (os.CLD_EXITED, 1):
            return None
        with suppress(DockerException, OSError):  # an engine gone now refused the start
            if self._started_events():
                return None
        self.drain_output()
        with self._lock:
            text = self._tail.take()
        said = [line.strip() for line in text.splitlines() if line.startswith(DOCKER_REFUSALS)]
        return said[-1] if said else f"docker start exited with status 1: {text.strip()[-200:]}"

    def _started_events(self) -> list[object]:
        """The engine's ``start`` events of this container (none: it never ran)."""
        return list(
            self.seat.client.api.events(
                since=self._created - 1,
                until=time.time(),  # a later end would keep the stream open until then
                filters={"container": self.name, "event": "start"},
                decode=True,
            )
        )

    def describe_exit(self, code: int, status: int) -> str:
        # The client exits with the container's status: 128 + N when its process was killed
        # by signal N. Inside its namespace only the kernel can SIGKILL the bot's PID 1: the
        # memory limit's OOM killer (our own kills are not reported as faults).
        if code == os.CLD_EXITED and status > 128:
            try:
                name = signal.Signals(status - 128).name
            except ValueError:
                return describe_exit(code, status)
            if name == "SIGKILL":
                limit = self.seat.settings.memory_bytes // (1024 * 1024)
                return f"was killed by signal SIGKILL (out of memory? the limit is {limit} MiB)"
            return describe_exit(os.CLD_KILLED, status - 128)
        return describe_exit(code, status)

    def _kill(self) -> None:
        # Should the engine fail, the client's end of input still stops a reading host.
        with suppress(DockerException, OSError):
            remove_container(self.seat.client, self.name)
        deadline = time.monotonic() + CLIENT_EXIT_SECONDS
        while self._proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        with suppress(OSError):
            self._proc.kill()

    def _release(self) -> None:
        if self._bot_dir is not None:
            remove_tree(self._bot_dir)
