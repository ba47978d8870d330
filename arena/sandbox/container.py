"""One bot's container: created through the Docker Engine API with the whole sandbox in its
configuration (:func:`container_config`), attached to a socket that carries its stdin,
stdout and stderr, then started. :class:`ContainerHost` speaks the SDK's protocol over that
socket (the protocol half, :class:`~cucumbers.runners.hostproc.HostChannel`, is the process
runner's: deadlines, line checks and output capture are the same; only the transport and
the start and stop differ). No client process runs per bot.

Why not ``docker run``: its CLI cannot create a container with networking disabled, only one
on the ``none`` network, for which Docker 20.10 runs a prestart hook (a whole ``dockerd``
re-executed to set up the network sandbox) in every container. A container created with
``NetworkDisabled`` gets the same empty network namespace (its own loopback, nothing else)
without that hook: about 80 ms of CPU less per bot. Nor ``docker start --attach``: a client
process per bot costs 20 ms of CPU to start and relays every message once more (see
docs/sandbox.md).

The container runs the image's entry point (``python3 -m cucumbers.host``) on the bot's
file, which is copied into a private directory of its own (file 0444, directory 0555) and
mounted read-only at ``/bot``; a built-in bot gets no mount at all. Nothing of our
environment enters the container.

Stopping: after ``quit`` (and the end of its input) the host exits and the engine removes
the container (``AutoRemove``). Otherwise the container is removed by force. Should this
process die, the engine sees the attach connection close and ends the container's input; a
host that is reading exits and the engine removes it. A container whose bot is stuck stays:
:mod:`arena.sandbox.reaper` removes it.
"""

from __future__ import annotations

import hashlib
import os
import re
import select
import shutil
import signal
import socket
import tempfile
import threading
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker
from docker.errors import APIError, DockerException, NotFound
from docker.types import ContainerConfig, HostConfig, LogConfig, Mount, Ulimit

from cucumbers.host import OUTPUT_FENCE, OUTPUT_FENCE_VARIABLE
from cucumbers.loader import BUILTIN_PREFIX
from cucumbers.protocol import EndGame, RunnerMessage
from cucumbers.runners.hostproc import HostChannel, describe_exit, remove_tree
from cucumbers.runners.output import OutputTail

from . import labels
from .settings import SandboxSettings

#: What the attach socket carries: the container's stdin, stdout and stderr, from now on.
ATTACH_PARAMS = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
#: The attach stream's frames: an 8-byte header, stream 1 for stdout and 2 for stderr.
FRAME_HEADER, STDOUT, STDERR = 8, 1, 2
#: How often a wait for a container's end looks at the engine's events once its streams end.
EXIT_POLL_SECONDS = 0.01
#: Thread-count variables of numerical libraries, set to the CPU quota in the container.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: Where the bot's directory appears inside the container.
BOT_DIR = "/bot"
#: Seconds an API call to the engine may take before we give up on it.
API_TIMEOUT = 15
#: Longest wait at a game's end for the rest of its output (the host's fence, which follows
#: the ``end_game`` hook: a bot stuck there gets its output cut at this point).
OUTPUT_FENCE_SECONDS = 1.0

_SAFE_FILE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.py$")
#: Staged bot directories are named ``<prefix><host>-<runner pid>-<runner start>-<random>``
#: (``<host>``: a short hash of the host name, should the folder be shared).
STAGING_PREFIX = "cucumbers-sandbox-"
_STAGED = re.compile(rf"^{STAGING_PREFIX}([0-9a-f]{{8}})-(\d+)-(\d+)-[^/]+$")


def engine_client(timeout: float = API_TIMEOUT) -> docker.DockerClient:
    """A client of the local Docker engine (raises ``DockerException`` without one)."""
    return docker.from_env(timeout=timeout)


def ping_problem(client: docker.DockerClient) -> str | None:
    """Why the engine of ``client`` does not answer a ping now, or None when it does."""
    try:
        client.ping()
    except (DockerException, OSError) as error:
        return str(error) or type(error).__name__
    return None


def engine_problem(timeout: float) -> str | None:
    """Why the local Docker engine does not answer a ping within ``timeout``, or None."""
    try:
        client = engine_client(timeout)
    except (DockerException, OSError) as error:
        return str(error) or type(error).__name__
    try:
        return ping_problem(client)
    finally:
        client.close()


def engine_runtimes(timeout: float) -> list[str]:
    """The OCI runtimes the local engine knows, sorted. Raises ``DockerException`` or
    ``OSError`` when it does not answer."""
    client = engine_client(timeout)
    try:
        return sorted(client.info().get("Runtimes") or {})
    finally:
        client.close()


def runtime_problem(runtime: str, timeout: float) -> str | None:
    """Why the local engine cannot run containers with ``runtime``, or None when it can."""
    try:
        known = engine_runtimes(timeout)
    except (DockerException, OSError) as error:
        return f"the Docker engine cannot be asked for its runtimes: {error}"
    if runtime in known:
        return None
    return (
        f"the Docker engine has no runtime {runtime!r} (it has {', '.join(known) or 'none'});"
        " register it in /etc/docker/daemon.json (deploy/ensure-docker.sh does for runsc"
        " with CUCUMBERS_GVISOR=1) or set CUCUMBERS_SANDBOX_RUNTIME to one it has"
    )


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


def staging_prefix(runner: labels.RunnerIdentity) -> str:
    """The start of the name of every directory ``runner`` stages files in: the reaper
    removes such a directory once its runner is gone (:func:`staging_owner`)."""
    return f"{STAGING_PREFIX}{host_tag()}-{runner.pid}-{runner.start}-"


def staging_owner(name: str) -> tuple[int, int] | None:
    """The runner (pid, start time) of this host that staged the directory ``name``, if it
    is one."""
    match = _STAGED.match(name)
    if match is None or match.group(1) != host_tag():
        return None
    return int(match.group(2)), int(match.group(3))


class SandboxRefused(Exception):
    """The engine refused to create a bot's container; the message is Docker's reason."""


#: gVisor's runtime: its own kernel serves the bot's system calls (under gVisor's own
#: seccomp filters on the host), and it applies an OCI profile only with --oci-seccomp.
GVISOR_RUNTIME = "runsc"
#: The host's pids limit of a gVisor container: its kernel's threads and helpers.
GVISOR_HOST_PIDS = 1024


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
    ulimits = [
        Ulimit(name="nofile", soft=s.open_files, hard=s.open_files),
        Ulimit(name="fsize", soft=s.file_bytes, hard=s.file_bytes),
        Ulimit(name="core", soft=0, hard=0),
    ]
    pids = s.pids
    if s.runtime == GVISOR_RUNTIME:
        # gVisor's kernel counts the bot's processes and threads itself (RLIMIT_NPROC, one
        # sandbox per container); the host's pids limit then bounds gVisor's own threads
        # and helper processes, which a fork bomb would otherwise exhaust, killing the
        # sandbox instead of failing the bot's fork.
        ulimits.append(Ulimit(name="nproc", soft=s.pids, hard=s.pids))
        pids = GVISOR_HOST_PIDS
    host = HostConfig(
        api_version,
        network_mode=s.network,
        mem_limit=s.memory_bytes,
        memswap_limit=s.memory_bytes,  # equal to the memory: no swap at all
        nano_cpus=round(s.cpus * 1e9),
        pids_limit=pids,
        read_only=True,
        tmpfs={"/tmp": f"rw,nosuid,nodev,size={s.tmp_bytes},mode=1777"},
        ipc_mode="private",
        shm_size=s.tmp_bytes,
        cap_drop=["ALL"],
        security_opt=security_options(s),
        runtime=s.runtime,
        ulimits=ulimits,
        log_config=log,
        mounts=mounts,
        auto_remove=True,
    )
    # Harmless variables only: numerical libraries start one thread per CPU they see (the
    # machine's, not the quota), which the pids limit would turn into a crash; the hash
    # seed and the safe path match the process runner's host.
    environment = {variable: str(s.threads) for variable in THREAD_VARIABLES}
    environment |= {"PYTHONHASHSEED": "0", "PYTHONSAFEPATH": "1", OUTPUT_FENCE_VARIABLE: "1"}
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


def security_options(settings: SandboxSettings) -> list[str]:
    """No new privileges ever, and the seccomp profile the settings name (none for gVisor,
    which applies none: see :data:`GVISOR_RUNTIME`)."""
    options = ["no-new-privileges"]
    if settings.runtime == GVISOR_RUNTIME:
        return options
    profile = settings.seccomp_profile()
    if profile is not None:
        options.append(f"seccomp={profile}")
    return options


def create_container(seat: Seat, name: str, bot_dir: str | None, argument: str) -> None:
    """Create the bot's container ``name`` (not started). Raises :class:`SandboxRefused`
    with Docker's reason, or ``DockerException``/``OSError`` when the engine fails."""
    api = seat.client.api
    config = container_config(seat, bot_dir, argument, api.api_version)
    try:
        api.create_container_from_config(config, name)
    except APIError as error:  # a bad setting, a missing image, a name in use...
        raise SandboxRefused(str(error.explanation or error)) from error


#: The name's end of a runner's private directory, which holds its bots' staged copies.
PRIVATE_SUFFIX = "private"


def private_directory(runner: labels.RunnerIdentity, staging_dir: str | None) -> str:
    """The runner's own directory in ``staging_dir`` (0700). A staged copy must be readable
    by the container's user, so it is 0444 in a 0555 directory; inside this one, no other
    account of the arena host can reach it (the engine, root, mounts it all the same). The
    reaper removes it with the rest once its runner is gone (its name is a staged name)."""
    root = staging_dir or tempfile.gettempdir()
    return os.path.join(root, staging_prefix(runner) + PRIVATE_SUFFIX)


def _private_tempdir(seat: Seat) -> str:
    parent = private_directory(seat.runner, seat.settings.staging_dir)
    for _ in range(5):
        os.makedirs(parent, mode=0o700, exist_ok=True)
        os.chmod(parent, 0o700)  # makedirs' mode passes through the umask
        try:
            return tempfile.mkdtemp(prefix="bot-", dir=parent)
        except FileNotFoundError:
            continue  # another host of this runner removed it, empty, just now
    raise OSError(f"cannot keep the staging directory {parent!r}")


def _remove_private_if_empty(bot_dir: str) -> None:
    """The runner's private directory goes with its last staged copy (a removal of a
    directory in use fails: ENOTEMPTY)."""
    with suppress(OSError):
        os.rmdir(os.path.dirname(bot_dir))


def stage_bot(source: str, seat: Seat) -> tuple[str, str]:
    """Copy the bot's file into a new private directory; (directory, path inside the
    container). The copy keeps the file's name (fault details name it), unless the name
    is unusual. The directory's name carries the runner's identity, so that the reaper can
    remove it should the runner die (see :func:`staging_owner`)."""
    name = Path(source).name
    if not _SAFE_FILE.match(name):
        name = "bot.py"
    directory = _private_tempdir(seat)
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
        _remove_private_if_empty(directory)
        raise
    return directory, f"{BOT_DIR}/{name}"


class ContainerHost(HostChannel):
    """A bot host in a container of its own, its protocol on a socket attached to the
    container's stdin, stdout and stderr through the Engine API (no client process).

    Creating and attaching happen here; the start runs in a thread, so that the containers
    of a match start together. Raises :class:`SandboxRefused` when the engine refuses the
    container, ``OSError`` (e.g. an unreadable bot file) or ``DockerException``.
    """

    def __init__(self, source: str, seat: Seat, tail: OutputTail, lock: threading.Lock) -> None:
        self.seat = seat
        self.name = labels.container_name(seat.match_id, seat.index)
        self.started = time.monotonic()  # the start-up limit includes the container's start
        self._created = time.time()
        self._tail = tail
        self._lock = lock
        self._frames = bytearray()
        self._held = b""  # the end of the last stderr frame, if it may begin a fence
        self._games_ended = self._fences_seen = 0
        self._status: str | None = None
        self._refused: str | None = None
        self._bot_dir: str | None = None
        self._attached: Any = None
        self._wake_read = self._wake_write = -1
        self._wake_lock = threading.Lock()  # the start thread never writes to a closed pipe
        argument = source
        try:
            if not source.startswith(BUILTIN_PREFIX):
                self._bot_dir, argument = stage_bot(source, seat)
            create_container(seat, self.name, self._bot_dir, argument)
            self._attached = seat.client.api.attach_socket(self.name, params=ATTACH_PARAMS)
            self._socket: socket.socket = getattr(self._attached, "_sock", self._attached)
            self._wake_read, self._wake_write = os.pipe()
            self._open_channel(self._socket.fileno(), self._socket.fileno(), self._wake_read)
        except BaseException:
            self._closed = True
            self._discard()
            raise
        self._starting = threading.Thread(
            target=self._start, name=f"cucumbers-start-{self.name}", daemon=True
        )
        self._starting.start()

    def _start(self) -> None:
        try:
            self.seat.client.api.start(self.name)
        except APIError as error:
            self._refused = str(error.explanation or error)
        except Exception as error:  # DockerException, OSError: the engine went away
            self._refused = f"the Docker engine failed: {error}"
        else:
            return
        with self._wake_lock, suppress(OSError):
            if self._wake_write >= 0:  # wakes a wait for this bot: it will never answer
                os.write(self._wake_write, b"!")

    def engine_lost(self) -> str | None:
        """Why the engine does not answer now, or None when it does."""
        return ping_problem(self.seat.client)

    def refusal(self) -> str | None:
        """Why the engine refused to start the container, if it did (the bot never ran).
        Waits for the start's answer: the engine may end the attached streams of a
        container it failed to start before it answers the start."""
        self._starting.join(timeout=API_TIMEOUT)
        return self._refused

    # -- what the socket carries -----------------------------------------------------------

    def _received(self, data: bytes) -> None:
        # The stream is multiplexed (no TTY): frames of an 8-byte header (stream number,
        # three zero bytes, big-endian payload size) and the payload.
        frames = self._frames
        frames += data
        while len(frames) >= FRAME_HEADER:
            end = FRAME_HEADER + int.from_bytes(frames[4:FRAME_HEADER], "big")
            if len(frames) < end:
                return
            stream, payload = frames[0], bytes(frames[FRAME_HEADER:end])
            del frames[:end]
            if stream == STDOUT:
                self._incoming += payload
            elif stream == STDERR:
                self._output(payload)

    def _output(self, payload: bytes) -> None:
        """The bot's output into the tail, without the host's fences (counted)."""
        data = self._held + payload
        while (at := data.find(OUTPUT_FENCE)) >= 0:
            self._write_tail(data[:at])
            self._fences_seen += 1
            data = data[at + len(OUTPUT_FENCE) :]
        keep = next(
            (
                k
                for k in range(min(len(OUTPUT_FENCE) - 1, len(data)), 0, -1)
                if data.endswith(OUTPUT_FENCE[:k])
            ),
            0,
        )
        self._held = data[len(data) - keep :] if keep else b""
        self._write_tail(data[: len(data) - keep])

    def _write_tail(self, data: bytes) -> None:
        with self._lock:
            self._tail.write_bytes(data)

    def send(self, message: RunnerMessage) -> None:
        if isinstance(message, EndGame):
            self._games_ended += 1
        super().send(message)

    def drain_output(self) -> None:
        """Take what the bot printed until now; at a game's end, until the host's fence
        says its output is complete: the attach stream carries the bot's output (stderr)
        and the host's answers (stdout) in no guaranteed order, so the end of a game's
        output can arrive after its last answer (bounded by :data:`OUTPUT_FENCE_SECONDS`)."""
        if self._closed:
            return
        self._read()
        deadline = time.monotonic() + OUTPUT_FENCE_SECONDS
        while (
            self._fences_seen < self._games_ended
            and not self._eof
            and not self.broken
            and (left := deadline - time.monotonic()) > 0
        ):
            self._wait_readable(left)
            self._read()

    def _end_input(self) -> None:
        # The engine closes the container's stdin (StdinOnce): the end of input for the host.
        self._socket.shutdown(socket.SHUT_WR)

    # -- the end -------------------------------------------------------------------------

    def exit_status(self) -> str | None:
        """How the host ended, once its streams ended and the engine logged its ``die``."""
        if self._status is not None or self._refused is not None:
            return self._status
        if not self._eof and not self._closed:
            self._read()
        if not self._eof:
            return None
        code = self._exit_code()
        if code is not None:
            self._status = self.describe_exit(os.CLD_EXITED, code)
        return self._status

    def _exit_code(self) -> int | None:
        """The exit code in the engine's ``die`` event of this container, if logged yet."""
        with suppress(DockerException, OSError, KeyError, ValueError):
            for event in self.seat.client.api.events(
                since=self._created - 1,
                until=time.time(),  # a later end would keep the stream open until then
                filters={"container": self.name, "event": "die"},
                decode=True,
            ):
                return int(event["Actor"]["Attributes"]["exitCode"])
        return None

    def wait_exit(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while (status := self.exit_status()) is None and (left := deadline - time.monotonic()) > 0:
            self._wait_readable(min(left, EXIT_POLL_SECONDS))
        return status

    def _wait_readable(self, seconds: float) -> None:
        if self._eof or self._closed or self._refused is not None:
            time.sleep(seconds)  # the streams ended: the engine's event is the news awaited
        else:
            select.select([self._out_fd], [], [], seconds)

    def describe_exit(self, code: int, status: int) -> str:
        # The container's exit code is 128 + N when its process was killed by signal N.
        # Inside its namespace only the kernel can SIGKILL the bot's PID 1: the memory
        # limit's OOM killer (our own kills are not reported as faults).
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

    def close(self, grace: float) -> None:
        """Give the host ``grace`` seconds to end (after ``quit``), then remove its
        container by force, close the socket and remove the staged file. Never raises."""
        if self._closed:
            return
        with suppress(Exception):
            deadline = time.monotonic() + grace
            while not self._eof and (left := deadline - time.monotonic()) > 0:
                self._wait_readable(min(left, EXIT_POLL_SECONDS))
                self._read()
        self._closed = True
        with suppress(Exception):
            self._starting.join(timeout=API_TIMEOUT)
        self._discard()

    def _discard(self) -> None:
        """Remove the container (if any), close what we hold, remove the staged file."""
        with suppress(DockerException, OSError):
            remove_container(self.seat.client, self.name)
        for closing in (getattr(self, "_selector", None), self._attached):
            with suppress(Exception):
                if closing is not None:
                    closing.close()
        with suppress(Exception):
            self._socket.close()
        with self._wake_lock:
            for fd in (self._wake_read, self._wake_write):
                if fd >= 0:
                    with suppress(OSError):
                        os.close(fd)
            self._wake_read = self._wake_write = -1
        if self._bot_dir is not None:
            remove_tree(self._bot_dir)
            _remove_private_if_empty(self._bot_dir)
            self._bot_dir = None
