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
import selectors
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

from cucumbers.host import CHANNEL_OUTPUT, CHANNEL_PROTOCOL, OUTPUT_FENCE, OUTPUT_FENCE_VARIABLE
from cucumbers.loader import BUILTIN_PREFIX
from cucumbers.protocol import EndGame, HostMessage, RunnerMessage
from cucumbers.runners.clock import runner_clock
from cucumbers.runners.drain import OutputDrain
from cucumbers.runners.hostproc import (
    ChannelClosed,
    ChannelTimeout,
    HostChannel,
    describe_exit,
    remove_tree,
)
from cucumbers.runners.output import OutputTail

from . import labels
from .settings import ATTACH_CHANNEL, AUTO_CHANNEL, SOCKET_CHANNEL, SandboxSettings

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
#: Where the runner's sockets appear inside the container (``channel`` ``socket``).
CHANNEL_DIR = "/run/cucumbers"
#: A host connects to its channel within tens of milliseconds of its container's start;
#: a container not connected by then is asked now and then whether it already died (it
#: could not start Python, say), so that the wait ends then, not at the start-up limit.
CONNECT_CHECK_AFTER = 0.5
CONNECT_CHECK_EVERY = 0.1
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
    client = docker.from_env(timeout=timeout)
    if client.api.base_url.startswith("http+docker://"):
        # The engine's Unix socket: no proxy or .netrc applies to it, and requests would
        # look for them in the whole environment at every call (a worker's environment is
        # long: 2 to 5 ms of CPU a call, some fifteen calls a match).
        client.api.trust_env = False
    return client


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


#: Runtimes known to pass a bind-mounted Unix socket through: they run the bot's processes
#: in the host's kernel. gVisor does only with ``--host-uds`` (:func:`channel_for`).
SOCKET_RUNTIMES = frozenset({"runc", "crun"})
#: gVisor's flags that let a sandbox connect to a host's Unix socket mounted into it.
GVISOR_HOST_UDS = frozenset({"host-uds=open", "host-uds=all", "fsgofer-host-uds"})
_channels: dict[tuple[str, str], str] = {}
_channels_lock = threading.Lock()


def channel_for(client: docker.DockerClient, settings: SandboxSettings) -> str:
    """The channel the containers of ``settings`` use: the setting, unless ``auto``; then
    ``socket`` under runc (and crun), and under gVisor's runsc when the engine registered it
    with ``--host-uds=open`` (or ``all``; without it, runsc refuses a host socket's
    ``connect`` with EPERM); else ``attach``. Asks the engine once per runtime and process.
    Raises ``DockerException`` or ``OSError`` when the engine does not answer."""
    if settings.channel != AUTO_CHANNEL:
        return settings.channel
    if settings.runtime in SOCKET_RUNTIMES:
        return SOCKET_CHANNEL
    key = (str(client.api.base_url), settings.runtime)
    with _channels_lock:
        if key not in _channels:
            runtime = (client.info().get("Runtimes") or {}).get(settings.runtime) or {}
            arguments = {str(a).lstrip("-") for a in runtime.get("runtimeArgs") or ()}
            passes = settings.runtime == GVISOR_RUNTIME and bool(arguments & GVISOR_HOST_UDS)
            _channels[key] = SOCKET_CHANNEL if passes else ATTACH_CHANNEL
        return _channels[key]


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
    #: How moves travel: ``socket`` or ``attach`` (resolved, never ``auto``).
    channel: str = ATTACH_CHANNEL

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
    seat: Seat,
    bot_dir: str | None,
    argument: str,
    api_version: str,
    channel_dir: str | None = None,
) -> dict[str, object]:
    """The Engine API's create body for one bot: the whole sandbox in its settings.

    With ``channel_dir`` (the ``socket`` channel), that directory is mounted read-only at
    :data:`CHANNEL_DIR` and the host told to connect there; nothing is attached and the
    container has no input. Without it, ``OpenStdin`` with ``StdinOnce`` is ``docker run
    -i``: the container's input closes when its client's does. ``NetworkDisabled`` on the
    ``none`` network mode: an empty network namespace of its own, without the network
    set-up hook (module docstring).
    """
    s = seat.settings
    if s.log_bytes:
        log = LogConfig(type="json-file", config={"max-size": str(s.log_bytes), "max-file": "1"})
    else:
        log = LogConfig(type="none")
    mounts = []
    if bot_dir is not None:
        mounts.append(Mount(BOT_DIR, bot_dir, type="bind", read_only=True))
    command = [argument]
    if channel_dir is not None:
        mounts.append(Mount(CHANNEL_DIR, channel_dir, type="bind", read_only=True))
        command = ["--channel", CHANNEL_DIR, argument]
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
    attached = channel_dir is None
    config = ContainerConfig(
        api_version,
        s.image,
        command,
        user=s.user,
        stdin_open=attached,
        environment=environment,
        network_disabled=True,
        labels=seat.labels(),
        host_config=host,
    )
    config.update(
        StdinOnce=attached, AttachStdin=attached, AttachStdout=attached, AttachStderr=attached
    )
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


def create_container(
    seat: Seat, name: str, bot_dir: str | None, argument: str, channel_dir: str | None = None
) -> None:
    """Create the bot's container ``name`` (not started). Raises :class:`SandboxRefused`
    with Docker's reason, or ``DockerException``/``OSError`` when the engine fails."""
    api = seat.client.api
    config = container_config(seat, bot_dir, argument, api.api_version, channel_dir)
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


def _private_tempdir(seat: Seat, prefix: str = "bot-") -> str:
    parent = private_directory(seat.runner, seat.settings.staging_dir)
    for _ in range(5):
        os.makedirs(parent, mode=0o700, exist_ok=True)
        os.chmod(parent, 0o700)  # makedirs' mode passes through the umask
        try:
            return tempfile.mkdtemp(prefix=prefix, dir=parent)
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


class FenceFilter:
    """Where the bot's output goes on its way into the tail: the host's fences are taken
    out and counted (:data:`~cucumbers.host.OUTPUT_FENCE`). Called under the client's lock,
    whose condition :attr:`changed` it notifies at each fence."""

    def __init__(self, tail: OutputTail, changed: threading.Condition) -> None:
        self._tail = tail
        self._changed = changed
        self._held = b""  # the end of the last write, if it may begin a fence
        self.fences = 0

    def write_bytes(self, payload: bytes) -> None:
        data = self._held + payload
        while (at := data.find(OUTPUT_FENCE)) >= 0:
            self._tail.write_bytes(data[:at])
            self.fences += 1
            self._changed.notify_all()
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
        self._tail.write_bytes(data[: len(data) - keep])


class ChannelListener:
    """The runner's end of a ``socket`` channel before the host connects: a private
    directory (in the runner's ``0700`` one, as the staged bot files) holding two listening
    Unix sockets, ``protocol`` and ``output``, that the host's container gets mounted
    read-only at :data:`CHANNEL_DIR`. Each socket takes one connection, then is closed and
    removed: nobody connects after the host."""

    def __init__(self, seat: Seat) -> None:
        self.directory = _private_tempdir(seat, prefix="channel-")
        self._listeners: dict[str, socket.socket] = {}
        try:
            if "," in self.directory:  # --mount's fields are comma-separated
                raise OSError(f"the staging directory {self.directory!r} holds a comma")
            # A Unix socket's path is at most 108 bytes; the directory's may be longer.
            # Bound through a descriptor of the directory, the path stays short.
            folder = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                for name in (CHANNEL_PROTOCOL, CHANNEL_OUTPUT):
                    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    self._listeners[name] = listener
                    path = f"/proc/self/fd/{folder}/{name}"
                    listener.bind(path)
                    listener.listen(1)
                    listener.setblocking(False)
                    # connect() needs write permission on the socket: the container's user
                    # has it; no other account of this host reaches the private directory.
                    os.chmod(path, 0o666)
            finally:
                os.close(folder)
            os.chmod(self.directory, 0o555)  # nothing can be created in it
        except BaseException:
            self.close()
            raise

    def fileno(self, name: str) -> int:
        return self._listeners[name].fileno()

    def accept(self, name: str) -> socket.socket | None:
        """The host's connection to socket ``name`` if it came (then the socket is closed
        and removed: nobody else connects), else None."""
        listener = self._listeners.get(name)
        if listener is None:
            return None
        try:
            connection, _ = listener.accept()
        except (BlockingIOError, InterruptedError):
            return None
        del self._listeners[name]
        listener.close()
        with suppress(OSError):
            os.chmod(self.directory, 0o755)
            os.unlink(os.path.join(self.directory, name))
            os.chmod(self.directory, 0o555)
        return connection

    def close(self) -> None:
        """Close the sockets not connected yet and remove the directory. Never raises."""
        for listener in self._listeners.values():
            with suppress(OSError):
                listener.close()
        self._listeners.clear()
        remove_tree(self.directory)
        _remove_private_if_empty(self.directory)


class ContainerHost(HostChannel):
    """A bot host in a container of its own. The protocol travels over the seat's channel:

    - ``socket``: two Unix sockets of the runner's, in a directory mounted read-only into
      the container (:class:`ChannelListener`); the host connects to them as it starts,
      the protocol on one and the bot's output on the other, so every move goes through
      the kernel alone. Docker creates, limits and removes the container, and is asked for
      its exit status; it carries no message.
    - ``attach``: a socket attached to the container's stdin, stdout and stderr through the
      Engine API (no client process): every move goes through dockerd and the shim.

    Creating (and attaching) happen here; the start runs in a thread, so that the
    containers of a match start together. Raises :class:`SandboxRefused` when the engine
    refuses the container, ``OSError`` (e.g. an unreadable bot file) or ``DockerException``.
    """

    def __init__(self, source: str, seat: Seat, tail: OutputTail, lock: threading.Lock) -> None:
        self.seat = seat
        self.name = labels.container_name(seat.match_id, seat.index)
        self.started = runner_clock()  # the start-up limit includes the container's start
        self._created = time.time()
        self._tail = tail
        self._lock = lock
        self._changed = threading.Condition(lock)
        self._fenced = FenceFilter(tail, self._changed)
        self._frames = bytearray()
        self._games_ended = 0
        self._status: str | None = None
        self._refused: str | None = None
        self._bot_dir: str | None = None
        self._attached: Any = None
        self._listener: ChannelListener | None = None
        self._connections: list[socket.socket] = []
        self._drain: OutputDrain | None = None
        self._wake_read = self._wake_write = -1
        self._wake_lock = threading.Lock()  # the start thread never writes to a closed pipe
        argument = source
        try:
            if not source.startswith(BUILTIN_PREFIX):
                self._bot_dir, argument = stage_bot(source, seat)
            self._wake_read, self._wake_write = os.pipe()
            if seat.channel == SOCKET_CHANNEL:
                self._listener = ChannelListener(seat)
                create_container(seat, self.name, self._bot_dir, argument, self._listener.directory)
                protocol = self._listener.fileno(CHANNEL_PROTOCOL)
                # Until the host connects, waits watch the listening socket.
                self._open_channel(protocol, protocol, self._wake_read)
            else:
                create_container(seat, self.name, self._bot_dir, argument)
                self._attached = seat.client.api.attach_socket(self.name, params=ATTACH_PARAMS)
                self._socket: socket.socket = getattr(self._attached, "_sock", self._attached)
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

    # -- the socket channel: the host connects -----------------------------------------------

    @property
    def _connecting(self) -> bool:
        return self._listener is not None

    def next_message(self, deadline: float) -> HostMessage:
        if self._connecting and not self._closed:
            self._await_connection(deadline)
        return super().next_message(deadline)

    def _await_connection(self, deadline: float) -> None:
        """Accept the host's two connections (protocol, then output), waiting until
        ``deadline``. Raises :class:`ChannelTimeout`, or :class:`ChannelClosed` when the
        container could not start or ended first."""
        listener = self._listener
        assert listener is not None
        protocol = output = None
        while True:
            if protocol is None:
                protocol = listener.accept(CHANNEL_PROTOCOL)
            if protocol is not None and output is None:
                output = listener.accept(CHANNEL_OUTPUT)
            if protocol is not None and output is not None:
                break
            now = runner_clock()
            if self._refused is not None:
                raise ChannelClosed
            if now - self.started >= CONNECT_CHECK_AFTER and self._exit_code() is not None:
                self._eof = True  # it ended without connecting: its exit status says why
                raise ChannelClosed
            if now >= deadline:
                raise ChannelTimeout
            waiting = listener.fileno(CHANNEL_OUTPUT if protocol else CHANNEL_PROTOCOL)
            wait = deadline - now
            if now - self.started >= CONNECT_CHECK_AFTER:
                wait = min(wait, CONNECT_CHECK_EVERY)
            select.select([waiting, self._wake_read], [], [], wait)
        self._connections = [protocol, output]
        self._selector.unregister(self._out_fd)
        protocol.setblocking(False)
        self._in_fd = self._out_fd = protocol.fileno()
        self._selector.register(self._out_fd, selectors.EVENT_READ)
        self._watching_writes = False
        self._listener = None
        listener.close()
        self._drain = OutputDrain(output.fileno(), self._fenced, self._lock)
        self._flush()

    def _flush(self) -> None:
        if not self._connecting:
            super()._flush()
        elif not self._input_open:
            self._outgoing.clear()  # quit before the host connected: it is removed anyway

    def _read(self) -> None:
        if not self._connecting:
            super()._read()

    # -- what the channel carries ---------------------------------------------------------------

    def _received(self, data: bytes) -> None:
        if self._attached is None:  # the socket channel: protocol only
            self._incoming += data
            return
        # The attach stream is multiplexed (no TTY): frames of an 8-byte header (stream
        # number, three zero bytes, big-endian payload size) and the payload.
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
                with self._lock:
                    self._fenced.write_bytes(payload)

    def send(self, message: RunnerMessage, *, hold: bool = False) -> None:
        if isinstance(message, EndGame):
            self._games_ended += 1
        super().send(message, hold=hold)

    def drain_output(self) -> None:
        """Take what the bot printed until now; at a game's end, until the host's fence
        says its output is complete (bounded by :data:`OUTPUT_FENCE_SECONDS`). The attach
        stream carries the bot's output (stderr) and the host's answers (stdout) in no
        guaranteed order, so the end of a game's output can arrive after its last answer;
        on the socket channel the output has a socket of its own, and the game's
        ``end_game`` hook may still be printing."""
        if self._closed or self._connecting:
            return
        deadline = runner_clock() + OUTPUT_FENCE_SECONDS
        if self._drain is not None:
            self._drain.drain()
            with self._changed:
                while (
                    self._fenced.fences < self._games_ended
                    and not self._drain.done
                    and (left := deadline - runner_clock()) > 0
                ):
                    self._changed.wait(min(left, 0.05))
            return
        self._read()
        while (
            self._fenced.fences < self._games_ended
            and not self._eof
            and not self.broken
            and (left := deadline - runner_clock()) > 0
        ):
            self._wait_readable(left)
            self._read()

    def _end_input(self) -> None:
        if self._attached is not None:
            # The engine closes the container's stdin (StdinOnce): the end of input for it.
            self._socket.shutdown(socket.SHUT_WR)
        elif self._connections:
            self._connections[0].shutdown(socket.SHUT_WR)  # the host reads the end of input

    # -- the end -------------------------------------------------------------------------

    def exit_status(self) -> str | None:
        """How the host ended, once its channel ended and the engine logged its ``die``."""
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
        deadline = runner_clock() + timeout
        while (status := self.exit_status()) is None and (left := deadline - runner_clock()) > 0:
            self._wait_readable(min(left, EXIT_POLL_SECONDS))
        return status

    def _wait_readable(self, seconds: float) -> None:
        if self._eof or self._closed or self._refused is not None or self._connecting:
            time.sleep(seconds)  # the channel ended: the engine's event is the news awaited
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
        container by force, close the channel and remove the staged file. Never raises."""
        if self._closed:
            return
        with suppress(Exception):
            deadline = runner_clock() + grace
            while (
                not self._eof and not self._connecting and (left := deadline - runner_clock()) > 0
            ):
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
        drained = True
        if self._drain is not None:
            with suppress(Exception):
                drained = self._drain.stop(timeout=1)
        for closing in (getattr(self, "_selector", None), self._attached):
            with suppress(Exception):
                if closing is not None:
                    closing.close()
        with suppress(Exception):
            if self._attached is not None:
                self._socket.close()
        for index, connection in enumerate(self._connections):
            if index == 1 and not drained:
                continue  # never close a descriptor a live thread may still read
            with suppress(Exception):
                connection.close()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
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
