"""One bot's container: ``docker run -i --rm ...`` launched as the host subprocess of the
SDK's :class:`~cucumbers.runners.hostproc.HostProcess`, so the protocol pipes, deadlines
and output capture are exactly the process runner's; only starting and stopping differ.

The container runs the image's entry point (``python3 -m cucumbers.host``) on the bot's
file, which is copied into a private directory of its own (file 0444, directory 0555) and
mounted read-only at ``/bot``; a built-in bot gets no mount at all. Nothing of our
environment enters the container; the ``docker`` client itself gets only what it needs to
reach the engine.

Stopping: after ``quit`` the host exits, ``--rm`` removes the container and the client
exits once it is removed. Otherwise the container is removed by force through the Docker
API, and the client is killed if it still lingers. Should this process die, the client sees
the end of its input and closes the container's; a host that is reading exits and ``--rm``
removes it. A container whose bot is stuck stays: :mod:`arena.sandbox.reaper` removes it.
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

from cucumbers.runners.hostproc import HostProcess, Launch, describe_exit, remove_tree
from cucumbers.runners.output import OutputTail

from . import labels
from .settings import SandboxSettings

#: ``docker run``'s own status when the daemon refused (no image, bad option, no engine).
DOCKER_FAILED = 125
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


def docker_command(seat: Seat, name: str, bot_dir: str | None, argument: str) -> list[str]:
    """``docker run`` for one bot: the whole sandbox in its options."""
    s = seat.settings
    args = ["docker", "run", "--interactive", "--rm", "--name", name, "--pull", "never"]
    for key, value in seat.labels().items():
        args += ["--label", f"{key}={value}"]
    args += [
        f"--network={s.network}",
        f"--memory={s.memory_bytes}",
        f"--memory-swap={s.memory_bytes}",  # equal to --memory: no swap at all
        f"--cpus={s.cpus:g}",
        f"--pids-limit={s.pids}",
        "--read-only",
        "--tmpfs",
        f"/tmp:rw,nosuid,nodev,size={s.tmp_bytes},mode=1777",
        "--ipc=private",
        f"--shm-size={s.tmp_bytes}",
        "--cap-drop=ALL",
        "--security-opt=no-new-privileges",
        f"--user={s.user}",
        f"--ulimit=nofile={s.open_files}:{s.open_files}",
        f"--ulimit=fsize={s.file_bytes}:{s.file_bytes}",
        "--ulimit=core=0:0",
    ]
    if s.log_bytes:
        args += ["--log-driver=json-file", f"--log-opt=max-size={s.log_bytes}"]
        args += ["--log-opt=max-file=1"]
    else:
        args += ["--log-driver=none"]
    # Harmless variables only: numerical libraries start one thread per CPU they see (the
    # machine's, not the quota), which the pids limit would turn into a crash; the hash
    # seed and the safe path match the process runner's host.
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        args += ["--env", f"{variable}={s.threads}"]
    args += ["--env", "PYTHONHASHSEED=0", "--env", "PYTHONSAFEPATH=1"]
    if bot_dir is not None:
        args += ["--mount", f"type=bind,source={bot_dir},target={BOT_DIR},readonly"]
    return [*args, s.image, argument]


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
        launch = Launch(
            docker_command(seat, self.name, self._bot_dir, argument),
            client_environment(),
            cwd="/",
        )
        super().__init__(launch, tail, lock)

    def docker_failed(self) -> bool:
        """Whether the ``docker`` client exited with its own failure status
        (:data:`DOCKER_FAILED`; a bot exiting with that status looks the same)."""
        with suppress(ChildProcessError, OSError):
            result = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if result is not None and result.si_code == os.CLD_EXITED:
                return result.si_status == DOCKER_FAILED
        return False

    def docker_error(self) -> str:
        """What the ``docker`` client said when it failed (its last ``docker:`` line, taken
        out of the bot's output), or a generic description."""
        self.drain_output()
        with self._lock:
            text = self._tail.take()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        said = [line for line in lines if line.startswith("docker:")]
        return (said or lines or [f"docker run exited with status {DOCKER_FAILED}"])[-1]

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
