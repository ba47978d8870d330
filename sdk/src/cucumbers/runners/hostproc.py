"""One bot host seen from a runner: its protocol read and written without ever blocking, the
bot's output drained into an :class:`~cucumbers.runners.output.OutputTail`, and its clean-up.

:class:`HostChannel` is the protocol half, whatever carries it: messages written to one
descriptor and read from another (or both over one socket), deadlines, the end of input.
:class:`HostProcess` carries it over a subprocess's pipes, starting whatever a
:class:`Launch` describes and leaving to subclasses how everything the host started is
stopped: :class:`~cucumbers.runners.local.LocalHost` is the process runner's host. The
arena's Docker sandbox carries it over a socket attached to the bot's container.
"""

from __future__ import annotations

import os
import select
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass

from ..protocol import (
    MAX_LINE_BYTES,
    HostMessage,
    ProtocolError,
    Quit,
    RunnerMessage,
    ViewDeltas,
    decode_host_message,
)
from .clock import runner_clock
from .drain import OutputDrain
from .output import OutputTail

#: How much one read call takes from the protocol pipe before looking at the clock again.
READ_BUDGET = 1024 * 1024
#: What one read asks for.
READ_SIZE = 65536
#: Without a pidfd, how often a wait looks whether the host has exited.
POLL_SLICE = 0.05


class ChannelClosed(Exception):
    """The host closed its end of the protocol, or exited."""


class ChannelTimeout(Exception):
    """No complete message arrived before the deadline."""


def describe_exit(code: int, status: int) -> str:
    """``exited with status 3`` or ``was killed by signal SIGSEGV`` (from ``waitid``)."""
    if code == os.CLD_EXITED:
        return f"exited with status {status}"
    try:
        name = signal.Signals(status).name
    except ValueError:
        name = str(status)
    hint = {"SIGXCPU": " (CPU time limit)", "SIGXFSZ": " (file size limit)"}.get(name, "")
    return f"was killed by signal {name}{hint}"


def remove_tree(path: str) -> None:
    """Remove ``path`` even where the bot took away permissions. Never raises."""

    def retry(_function: object, failed: str, _error: object) -> None:
        with suppress(OSError):
            os.chmod(os.path.dirname(failed), 0o700)
            os.chmod(failed, 0o700, follow_symlinks=False)
        with suppress(OSError):
            if os.path.isdir(failed) and not os.path.islink(failed):
                shutil.rmtree(failed, ignore_errors=True)
            else:
                os.unlink(failed)

    with suppress(Exception):
        shutil.rmtree(path, onerror=retry)


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start one host subprocess.

    Attributes:
        argv: the command line.
        env: the subprocess's whole environment (nothing is inherited).
        cwd: its working directory (default: ours).
        preexec: run in the forked child before ``exec`` (e.g. ``setrlimit`` calls only).
    """

    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: str | None = None
    preexec: Callable[[], None] | None = None


class HostChannel:
    """The runner's end of a bot host's protocol. A subclass opens the transport and calls
    :meth:`_open_channel` with its descriptors, and says how the host ends through
    :meth:`_end_input`, :meth:`exit_status`, :meth:`wait_exit`, :meth:`drain_output` and
    :meth:`close`; it may override :meth:`_received` to take apart what it reads.

    Attributes:
        started: when the host was started (:func:`~.clock.runner_clock`); the start-up limit
            counts from it.
        broken: a write failed, or the input was ended: the host closed its input or died.
    """

    started: float
    broken: bool

    def _open_channel(self, in_fd: int, out_fd: int, exit_fd: int | None) -> None:
        """Use ``in_fd`` for writes and ``out_fd`` for reads (the same descriptor for a
        socket); ``exit_fd`` turns readable once the host ended. Without one, waits look at
        :meth:`exit_status` every ``POLL_SLICE``."""
        self._in_fd = in_fd
        self._out_fd = out_fd
        os.set_blocking(in_fd, False)
        os.set_blocking(out_fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(out_fd, selectors.EVENT_READ)
        self._exit_fd = exit_fd
        if exit_fd is not None:
            self._selector.register(exit_fd, selectors.EVENT_READ)
        self._polled = exit_fd is None
        self._incoming = bytearray()
        self._outgoing = bytearray()
        self._watching_writes = False
        self._input_open = True
        self._eof = False
        self._exited = False
        self.broken = False
        self._quit_sent = False
        self._closed = False
        self._messages = ViewDeltas()

    # -- hooks ---------------------------------------------------------------------------

    def _received(self, data: bytes) -> None:
        """Take ``data`` read from the host: by default, all of it is protocol."""
        self._incoming += data

    def _before_quit(self) -> None:
        """The host is about to be asked to quit (it may exit at once). May raise."""

    def _end_input(self) -> None:
        """Close the host's input: the end of input for it. May raise."""
        raise NotImplementedError

    def exit_status(self) -> str | None:
        """How the host ended, or None while it runs (or while that is not known yet)."""
        raise NotImplementedError

    def wait_exit(self, timeout: float) -> str | None:
        """:meth:`exit_status`, after waiting up to ``timeout`` seconds for the host to end."""
        raise NotImplementedError

    def drain_output(self) -> None:
        """Take into the output tail what the bot printed until now."""
        raise NotImplementedError

    def close(self, grace: float) -> None:
        """Stop the host and everything it started, after ``grace`` seconds for it to exit
        by itself, and free what it held. Never raises."""
        raise NotImplementedError

    # -- writing -------------------------------------------------------------------------

    def send(self, message: RunnerMessage, *, hold: bool = False) -> None:
        """Queue ``message`` and write what the pipe takes now. Never blocks or raises: a
        failed write sets :attr:`broken`, and the next read reports the closed channel.

        ``hold``: only queue it; it is written with the next message sent without ``hold``,
        or when the runner next waits for the host. A notice that a move of the same host
        follows anyway (``start_game``, ``end_round``) then wakes the host once with that
        move rather than once alone: a write that wakes another process is the dearest
        part of a message on a small machine."""
        if self.broken or self._closed:
            return
        self._outgoing += self._messages.encode(message)
        if not hold:
            self._flush()

    def _flush(self) -> None:
        if not self._input_open:  # after quit: nothing more reaches the host
            if self._outgoing:
                self.broken = True
                self._outgoing.clear()
            return
        while self._outgoing and not self.broken:
            try:
                written = os.write(self._in_fd, self._outgoing)
            except BlockingIOError:
                return
            except OSError:
                self.broken = True
                self._outgoing.clear()
                return
            del self._outgoing[:written]

    def _watch_writes(self) -> None:
        wanted = bool(self._outgoing) and not self.broken and self._input_open
        if wanted == self._watching_writes:
            return
        self._watching_writes = wanted
        if self._in_fd == self._out_fd:  # a socket: one registration for both ways
            writes = selectors.EVENT_WRITE if wanted else 0
            self._selector.modify(self._out_fd, selectors.EVENT_READ | writes)
        elif wanted:
            self._selector.register(self._in_fd, selectors.EVENT_WRITE)
        else:
            self._selector.unregister(self._in_fd)

    # -- reading -------------------------------------------------------------------------

    def next_message(self, deadline: float) -> HostMessage:
        """The next message from the host, waiting until ``deadline`` on the runner's
        clock (:func:`~.clock.runner_clock`, which leaves out this process's own stalls).
        Raises :class:`ChannelTimeout`, :class:`ChannelClosed` or ``ProtocolError``."""
        timed_out = False
        while True:
            line = self._next_line()
            if line is not None:
                return decode_host_message(line)
            if self._eof or self._exited or self.broken:
                raise ChannelClosed
            if self._outgoing or self._watching_writes:
                self._flush()
                self._watch_writes()
            wait = deadline - runner_clock()
            if wait <= 0:
                # Past the deadline: one last look, without waiting, at what has come.
                if timed_out:
                    raise ChannelTimeout
                timed_out, wait = True, 0.0
            if self._polled:
                wait = min(wait, POLL_SLICE)
            for key, events in self._selector.select(wait):
                if key.fd == self._exit_fd:
                    self._exited = True
                    continue
                if events & selectors.EVENT_WRITE:
                    self._flush()
                if events & selectors.EVENT_READ:
                    self._read()
            if self._polled and self.exit_status() is not None:
                self._exited = True
            if self._exited:
                self._read()  # what it wrote before it died

    def _read(self) -> None:
        taken = 0
        while taken < READ_BUDGET:
            try:
                data = os.read(self._out_fd, READ_SIZE)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self._eof = True
                return
            self._received(data)
            if len(data) < READ_SIZE:
                # The pipe or socket held less than asked: it is empty now, and one read
                # more would only raise BlockingIOError (what comes later, the next
                # select sees). An answer is one read, not two.
                return
            taken += len(data)

    def _next_line(self) -> bytes | None:
        end = self._incoming.find(b"\n")
        if end < 0:
            if len(self._incoming) > MAX_LINE_BYTES:
                raise ProtocolError(f"a line longer than {MAX_LINE_BYTES} bytes")
            return None
        if end >= MAX_LINE_BYTES:
            raise ProtocolError(f"a line longer than {MAX_LINE_BYTES} bytes")
        line = bytes(self._incoming[: end + 1])
        del self._incoming[: end + 1]
        return line

    def request_quit(self) -> None:
        """Ask the host to quit (after the :meth:`_before_quit` hook). Never raises."""
        if self._closed or self._quit_sent:
            return
        self._quit_sent = True
        with suppress(Exception):
            self._before_quit()
        self.send(Quit())
        # Ending the input is the end of input for the host, should the quit not fit in the
        # pipe; any later write fails.
        self._input_open = False
        with suppress(Exception):
            self._end_input()


class HostProcess(HostChannel):
    """A started host: ``launch`` in a new session, speaking the protocol on its stdin and
    stdout, its stderr drained into ``tail``. Raises ``OSError`` or
    ``subprocess.SubprocessError`` when it cannot be started.

    Subclasses say what else starting and stopping involves through the hooks
    :meth:`_on_started`, :meth:`_before_quit`, :meth:`_kill`, :meth:`_release` and
    :meth:`describe_exit`; the base class only knows its own child process.
    """

    def __init__(self, launch: Launch, tail: OutputTail, lock: threading.Lock) -> None:
        self.pid = 0
        self.started = runner_clock()
        try:
            self._proc = subprocess.Popen(
                list(launch.argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=launch.cwd,
                env=dict(launch.env),
                start_new_session=True,
                preexec_fn=launch.preexec,
            )
        except BaseException:
            self._release()
            raise
        self.pid = self._proc.pid
        self._on_started()
        try:
            self._setup(tail, lock)
        except BaseException:
            self._closed = True
            with suppress(Exception):
                self._kill()
                self._proc.wait(timeout=2)
            self._release()
            raise

    # -- hooks ---------------------------------------------------------------------------

    def _on_started(self) -> None:
        """The host runs (:attr:`pid` is set)."""

    def _kill(self) -> None:
        """Stop the host and everything it started, now. May raise (the caller suppresses)."""
        self._proc.kill()

    def _release(self) -> None:
        """Free what the launch set up; runs last, also when the start failed (then
        :attr:`pid` is 0). Must not raise."""

    def describe_exit(self, code: int, status: int) -> str:
        """How the host ended, from ``waitid``'s ``si_code`` and ``si_status``."""
        return describe_exit(code, status)

    def _setup(self, tail: OutputTail, lock: threading.Lock) -> None:
        assert self._proc.stdin and self._proc.stdout and self._proc.stderr
        self._drain = OutputDrain(self._proc.stderr.fileno(), tail, lock)
        # A pidfd (Linux >= 5.3) turns readable when the host ends, even while a process
        # it forked keeps the protocol pipe open; without one, waits look every POLL_SLICE.
        self._pidfd: int | None = None
        with suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(self.pid)
        self._open_channel(self._proc.stdin.fileno(), self._proc.stdout.fileno(), self._pidfd)

    def drain_output(self) -> None:
        """Take into the output tail what the bot printed until now."""
        self._drain.drain()

    # -- exit ----------------------------------------------------------------------------

    def exit_status(self) -> str | None:
        """How the host ended (it stays unreaped), or None while it runs."""
        try:
            result = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return "exited" if self._proc.returncode is not None else None
        if result is None:
            return None
        return self.describe_exit(result.si_code, result.si_status)

    def wait_exit(self, timeout: float) -> str | None:
        """:meth:`exit_status`, after waiting up to ``timeout`` seconds for the host to end."""
        deadline = runner_clock() + timeout
        while (status := self.exit_status()) is None and (left := deadline - runner_clock()) > 0:
            if self._pidfd is not None:
                select.select([self._pidfd], [], [], left)  # readable once the host ends
            else:
                time.sleep(min(left, 0.005))
        return status

    def _end_input(self) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.close()

    def close(self, grace: float) -> None:
        """Stop the host and everything it started, after ``grace`` seconds for it to exit
        by itself; reap it, stop the output drain, remove its directory. Never raises."""
        if self._closed:
            return
        self._closed = True
        with suppress(Exception):
            if grace > 0:
                self.wait_exit(grace)
        with suppress(Exception):
            self._kill()
        with suppress(Exception):
            self._proc.wait(timeout=2)
        drained = False
        with suppress(Exception):
            drained = self._drain.stop(timeout=1)
        for stream in (self._proc.stdin, self._proc.stdout):
            with suppress(Exception):
                if stream is not None:
                    stream.close()
        if drained:  # never close a descriptor a live thread may still read
            with suppress(Exception):
                assert self._proc.stderr is not None
                self._proc.stderr.close()
        with suppress(Exception):
            self._selector.close()
        if self._pidfd is not None:
            with suppress(OSError):
                os.close(self._pidfd)
        self._release()
