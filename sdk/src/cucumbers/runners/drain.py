"""Draining a bot's output pipe in a thread into an :class:`OutputTail`."""

from __future__ import annotations

import os
import selectors
import threading
from contextlib import suppress
from typing import Protocol


class ByteSink(Protocol):
    """Where drained bytes go: an :class:`~cucumbers.runners.output.OutputTail`, or
    anything that takes bytes the same way."""

    def write_bytes(self, data: bytes) -> None: ...


#: How much one drain takes from the pipe before letting go of the lock.
READ_BUDGET = 1024 * 1024


class OutputDrain:
    """A thread that moves a pipe's data into an :class:`OutputTail` as it comes, so a bot
    never blocks on its output. :meth:`drain` lets the match loop take, under the same lock,
    what is still in the pipe (all the bot printed before its last answer)."""

    def __init__(self, fd: int, tail: ByteSink, lock: threading.Lock) -> None:
        self._fd = fd
        self._tail = tail
        self._lock = lock
        self._done = False
        os.set_blocking(fd, False)
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._run, name="cucumbers-output", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._fd, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                events = selector.select()
                if self.drain() or any(key.fd == self._wake_read for key, _ in events):
                    return

    @property
    def done(self) -> bool:
        """The pipe reached its end (or the drain was stopped)."""
        return self._done

    def drain(self) -> bool:
        """Move what the pipe holds now into the tail; True once the pipe is at its end."""
        with self._lock:
            if self._done:
                return True
            taken = 0
            while taken < READ_BUDGET:
                try:
                    data = os.read(self._fd, 65536)
                except BlockingIOError:
                    return False
                except OSError:
                    data = b""
                if not data:
                    self._done = True
                    return True
                self._tail.write_bytes(data)
                taken += len(data)
            return False

    def stop(self, timeout: float) -> bool:
        """Stop the thread (after a last drain); True when it has stopped."""
        with suppress(OSError):
            os.write(self._wake_write, b"x")
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False
        for fd in (self._wake_read, self._wake_write):
            with suppress(OSError):
                os.close(fd)
        with self._lock:
            self._done = True
        return True
