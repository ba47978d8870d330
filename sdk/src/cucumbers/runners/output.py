"""Bounded capture of what a bot prints: only the tail is kept, so a flood costs nothing."""

from __future__ import annotations

import io
from collections import deque


class OutputTail:
    """Keeps the last ``limit`` bytes written to it, and counts what it dropped."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._dropped = 0

    def write_bytes(self, data: bytes) -> None:
        if not data:
            return
        if len(data) >= self._limit:
            self._dropped += self._size + len(data) - self._limit
            self._chunks.clear()
            self._chunks.append(data[-self._limit :])
            self._size = self._limit
            return
        self._chunks.append(data)
        self._size += len(data)
        while self._size > self._limit:
            extra = self._size - self._limit
            head = self._chunks[0]
            if len(head) <= extra:
                self._chunks.popleft()
                self._size -= len(head)
                self._dropped += len(head)
            else:
                self._chunks[0] = head[extra:]
                self._size -= extra
                self._dropped += extra

    def take(self) -> str:
        """The kept text (with a note of what was cut), and start afresh."""
        data = b"".join(self._chunks)
        text = data.decode("utf-8", errors="replace")
        if self._dropped:
            text = f"[… {self._dropped} bytes of output cut …]\n{text}"
        self._chunks.clear()
        self._size = 0
        self._dropped = 0
        return text


class TextTail(io.TextIOBase):
    """A text stream (``sys.stdout`` of in-process bots) writing into an :class:`OutputTail`."""

    def __init__(self, tail: OutputTail) -> None:
        super().__init__()
        self._tail = tail

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._tail.write_bytes(str(text).encode("utf-8", errors="replace"))
        return len(text)
