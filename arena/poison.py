"""Poison messages: whatever is on a queue that no consumer can read is dropped, logged and
counted, and the worker serves the next message. Never fatal.

Anyone who can write to the broker can put anything on a queue: raw bytes, JSON that is no
message (``redis-cli lpush reports x``), a message in another serializer (a pickle), an
oversized body. kombu's transports decode what they take off a queue before any consumer
sees it, and a body that does not decode raised out of the worker's event loop: the whole
worker exited (the platform's with its scheduler, or an arena worker). Two guards, used by
both sides' Celery apps (:data:`arena.broker.DELIVERY` and ``BrokerSettings.celery``):

- in the transport (:class:`RedisTransport`, :class:`FilesystemTransport`): what a channel
  takes off a queue must be a message kombu can read (JSON, an object with the properties
  a delivery needs, at most ``max_message_bytes``), else it is dropped there;
- in the worker's consumer (:class:`GuardedConsumer`): a message that reads but that Celery
  cannot take (another serializer, an unknown task, a body that does not decode, headers
  that break the request) is dropped (acknowledged) instead of ending the worker.

Each drop is one log line, ``event=broker.poison queue=... reason=... bytes=N dropped=K``
(``dropped``: this process's count so far, by queue in :func:`dropped`), with the first
bytes of the message. A genuine message is never dropped here: every message either side
sends is JSON that kombu itself wrote, and signed (what it says is checked later).
"""

from __future__ import annotations

import json
import logging
import threading
from collections import Counter
from collections.abc import Mapping
from queue import Empty
from typing import Any, Final

from celery.worker.consumer.consumer import Consumer
from kombu.transport import filesystem, redis
from kombu.transport.virtual import Channel as VirtualChannel

from .broker import DEFAULT_MAX_MESSAGE_BYTES
from .logs import FIELDS

logger = logging.getLogger("arena.poison")

#: The transport option with the largest message a consumer takes
#: (``CELERY_MAX_MESSAGE_BYTES``, default 32 MiB): a report of the longest match (200 games
#: of seven bots, replays and output tails) is a few megabytes.
MAX_MESSAGE_OPTION: Final = "max_message_bytes"
#: What a log line shows of a dropped message.
PREVIEW_BYTES: Final = 200
EVENT: Final = "broker.poison"

_counts: Counter[str] = Counter()
_lock = threading.Lock()


def dropped() -> dict[str, int]:
    """Poison messages this process dropped so far, by queue."""
    with _lock:
        return dict(_counts)


def drop(queue: str, reason: str, raw: bytes | str | None = None, size: int | None = None) -> None:
    """Count and log one dropped message of ``queue`` (``raw``: what it held, if known)."""
    with _lock:
        _counts[queue] += 1
        count = _counts[queue]
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "replace")
    if size is None:
        size = len(raw) if raw is not None else -1
    preview = repr(raw[:PREVIEW_BYTES]) if raw is not None else "?"
    fields = {"event": EVENT, "queue": queue, "reason": reason, "bytes": size, "dropped": count}
    logger.error(
        'event=%s queue=%s reason="%s" bytes=%d dropped=%d: a message no consumer can read,'
        " dropped; it began %s",
        EVENT,
        queue,
        reason.replace('"', "'"),
        size,
        count,
        preview,
        extra={FIELDS: fields},
    )


def _limit(channel: VirtualChannel) -> int:
    options: Mapping[str, Any] = channel.connection.client.transport_options or {}
    try:
        return int(options.get(MAX_MESSAGE_OPTION) or DEFAULT_MAX_MESSAGE_BYTES)
    except (TypeError, ValueError):
        return DEFAULT_MAX_MESSAGE_BYTES


def problem(channel: VirtualChannel, payload: Any) -> str | None:
    """Why ``payload`` (what a queue held, as JSON) is not a message ``channel`` can deliver;
    None when it is. What kombu and its QoS read of a message before any consumer code."""
    if not isinstance(payload, dict):
        return f"JSON {type(payload).__name__}, not a message"
    properties = payload.get("properties")
    if not isinstance(properties, dict):
        return "no properties"
    if not isinstance(properties.get("delivery_tag"), str):
        return "no delivery tag"
    info = properties.get("delivery_info")
    if not isinstance(info, dict) or not all(
        isinstance(info.get(key), str) for key in ("exchange", "routing_key")
    ):
        return "no delivery info"
    if not isinstance(payload.get("body", ""), str):
        return "a body that is not text"
    headers = payload.get("headers")
    if headers is not None and not isinstance(headers, dict):
        return "headers that are not an object"
    if isinstance(headers, dict) and "task" in headers and not isinstance(headers["task"], str):
        return "a task name that is not text"
    for key in ("content-type", "content-encoding"):
        if not isinstance(payload.get(key), str | None):
            return f"a {key} that is not text"
    try:
        channel.Message(payload, channel=channel)  # type: ignore[no-untyped-call]
    except Exception as error:  # the body's encoding (base64...) does not decode
        return f"unreadable: {type(error).__name__}: {error}"
    return None


def checked(channel: VirtualChannel, queue: str, item: bytes | str) -> dict[str, Any] | None:
    """The message a queue held, or None (dropped, logged, counted) when it is poison."""
    size = len(item)
    limit = _limit(channel)
    if size > limit:
        drop(queue, f"oversized: more than {limit} bytes", item, size)
        return None
    try:
        payload = json.loads(item)  # bytes: UTF-8 (or UTF-16/32, as json reads them)
    except ValueError as error:  # not JSON, not UTF-8
        drop(queue, f"not JSON: {error}", item, size)
        return None
    reason = problem(channel, payload)
    if reason is not None:
        drop(queue, reason, item, size)
        return None
    assert isinstance(payload, dict)
    return payload


class RedisChannel(redis.Channel):
    """kombu's Redis channel, reading each message it takes off a list through
    :func:`checked` (kombu's own ``_brpop_read`` and ``_get``, but for that)."""

    def _brpop_read(self, **options: Any) -> bool:
        try:
            try:
                dest__item = self.client.parse_response(self.client.connection, "BRPOP", **options)
            except self.connection_errors:
                # As kombu: disconnect, so that the next iteration connects again.
                self.client.connection.disconnect()
                raise
            if dest__item:
                dest, item = dest__item
                dest = _text(dest).rsplit(self.sep, 1)[0]
                self._queue_cycle.rotate(dest)
                message = checked(self, dest, item)
                if message is not None:
                    self.connection._deliver(message, dest)
                return True
            raise Empty()
        finally:
            self._in_poll = None  # type: ignore[assignment]
            self._flush_brpop_reauth()  # type: ignore[no-untyped-call]

    def _get(self, queue: Any, timeout: Any = None) -> Any:
        # Poison is skipped, not taken for an empty queue: the message behind it comes now.
        with self.conn_or_acquire() as client:
            for pri in self.priority_steps:
                while item := client.rpop(self._q_for_pri(queue, pri)):  # type: ignore[no-untyped-call]
                    message = checked(self, queue, item)
                    if message is not None:
                        self._maybe_update_queues_expire(client, queue)  # type: ignore[no-untyped-call]
                        return message
            self._maybe_update_queues_expire(client, queue)  # type: ignore[no-untyped-call]
            raise Empty()


class RedisTransport(redis.Transport):
    Channel = RedisChannel


class FilesystemChannel(filesystem.Channel):
    """kombu's filesystem channel (``make run`` without Redis), with the same checks: a
    file that is not a message is dropped (kombu has already removed it from the queue)."""

    def _get(self, queue: Any, timeout: Any = None) -> Any:
        # Poison is skipped, not taken for an empty queue (kombu's Empty ends the loop).
        while True:
            try:
                payload = super()._get(queue)  # type: ignore[no-untyped-call]
            except ValueError as error:  # JSON (or UTF-8) that does not decode
                drop(queue, f"not JSON: {error}")
                continue
            reason = problem(self, payload)
            if reason is None and len(payload.get("body") or "") > _limit(self):
                reason = f"oversized: more than {_limit(self)} bytes"
            if reason is None:
                return payload
            drop(queue, reason, json.dumps(payload)[:PREVIEW_BYTES])


class FilesystemTransport(filesystem.Transport):
    Channel = FilesystemChannel


class GuardedConsumer(Consumer):  # type: ignore[misc]
    """Celery's worker consumer, for which no single message is fatal: one that cannot be
    decoded or taken as a task is dropped (acknowledged), logged and counted."""

    def on_decode_error(self, message: Any, exc: Exception) -> None:
        queue = _queue_of(message)
        drop(queue, f"undecodable: {type(exc).__name__}: {exc}", _body_of(message))
        _acknowledge(message)

    def on_invalid_task(self, body: Any, message: Any, exc: Exception) -> None:
        drop(_queue_of(message), f"invalid task: {type(exc).__name__}: {exc}", _body_of(message))
        super().on_invalid_task(body, message, exc)

    def on_unknown_message(self, body: Any, message: Any) -> None:
        drop(_queue_of(message), "not a task message", _body_of(message))
        super().on_unknown_message(body, message)

    def on_unknown_task(self, body: Any, message: Any, exc: Exception) -> None:
        drop(_queue_of(message), f"unknown task: {exc}", _body_of(message))
        try:
            super().on_unknown_task(body, message, exc)
        except Exception:  # headers without an id: nothing else to say about it
            _acknowledge(message)

    def create_task_handler(self, *args: Any, **kwargs: Any) -> Any:
        handle = super().create_task_handler(*args, **kwargs)
        fatal = tuple(self.connection_errors) + tuple(self.channel_errors)

        def on_task_received(message: Any) -> Any:
            try:
                return handle(message)
            except fatal:
                raise  # the connection's, not the message's: the consumer reconnects
            except Exception as error:
                drop(
                    _queue_of(message),
                    f"the worker cannot take it: {type(error).__name__}: {error}",
                    _body_of(message),
                )
                _acknowledge(message)
                return None

        return on_task_received


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _queue_of(message: Any) -> str:
    info = getattr(message, "delivery_info", None)
    if isinstance(info, dict):
        return str(info.get("routing_key") or info.get("exchange") or "?")
    return "?"


def _body_of(message: Any) -> bytes | str | None:
    body = getattr(message, "body", None)
    return body if isinstance(body, bytes | str) else None


def _acknowledge(message: Any) -> None:
    try:
        if not message.acknowledged:
            message.ack()
    except Exception:  # already gone with its connection: it will not come back either
        logger.exception("could not acknowledge a dropped message")
