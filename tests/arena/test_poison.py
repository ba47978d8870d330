"""The poison guard of the broker's transports (arena/poison.py), on kombu's own
filesystem transport and on a real Redis: what is no message is dropped and counted, the
genuine message behind it is delivered, whichever way a consumer takes it (a consumer's
event loop, or ``basic_get``)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import kombu
import pytest
import redis

from arena import poison
from arena.broker import BrokerSettings, Role

REDIS_URL = os.environ.get("CUCUMBERS_TEST_REDIS_URL", "redis://127.0.0.1:6379/7")
GARBAGE = (b"x\x00\xff garbage", b'{"hello": "world"}', b"[1, 2]", b'{"body": "x" }')


def connection(settings: dict[str, object]) -> kombu.Connection:
    return kombu.Connection(  # type: ignore[no-untyped-call]
        settings["broker_url"],
        transport=settings["broker_transport"],
        transport_options=settings["broker_transport_options"],
    )


def drained(conn: kombu.Connection, queue: str) -> list[object]:
    """What a consumer's event loop delivers from ``queue`` until it is quiet."""
    received: list[object] = []
    with conn.Consumer(
        kombu.Queue(queue), callbacks=[lambda body, m: (received.append(body), m.ack())]
    ):  # type: ignore[no-untyped-call]
        for _ in range(20):
            try:
                conn.drain_events(timeout=2)
            except TimeoutError:
                break
    return received


def test_the_filesystem_transport_drops_what_is_no_message_and_delivers_the_rest(
    tmp_path: Path,
) -> None:
    settings = BrokerSettings(folder=tmp_path, max_message_bytes=1000).celery(Role.PLATFORM)
    queue = f"q{uuid.uuid4().hex[:8]}"
    before = poison.dropped().get(queue, 0)
    folder = tmp_path / "queue"
    for number, body in enumerate(GARBAGE):
        (folder / f"0000{number}_{uuid.uuid4()}.{queue}.msg").write_bytes(body)
    with connection(settings) as conn:
        producer = conn.Producer(serializer="json")  # type: ignore[no-untyped-call]
        producer.publish({"genuine": 1}, routing_key=queue, declare=[kombu.Queue(queue)])
        producer.publish({"big": "y" * 2000}, routing_key=queue)
        assert drained(conn, queue) == [{"genuine": 1}]
    assert poison.dropped()[queue] - before == len(GARBAGE) + 1
    assert list(folder.glob(f"*.{queue}.msg")) == []


def test_the_redis_transport_drops_what_is_no_message_in_both_ways_of_taking_it() -> None:
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Redis is not available at {REDIS_URL}: {error}")
        pytest.skip(f"Redis is not available at {REDIS_URL}: {error}")
    settings = BrokerSettings(redis_url=REDIS_URL, max_message_bytes=1000).celery(Role.PLATFORM)
    queue = f"q{uuid.uuid4().hex[:8]}"
    with connection(settings) as conn:
        simple = conn.SimpleQueue(queue)  # type: ignore[no-untyped-call]
        try:
            for body in GARBAGE:
                client.lpush(queue, body)
            simple.put({"genuine": 1})
            # basic_get (the channel's _get): the garbage dropped, the message behind it taken.
            got = simple.get(block=False)
            assert got.payload == {"genuine": 1}
            got.ack()
            # A consumer's loop (BRPOP): the same again, and an oversized message.
            for body in GARBAGE:
                client.lpush(queue, body)
            simple.put({"big": "y" * 2000})
            simple.put({"genuine": 2})
            assert drained(conn, queue) == [{"genuine": 2}]
        finally:
            simple.clear()
            simple.close()
            client.delete(queue)
    assert poison.dropped()[queue] == 2 * len(GARBAGE) + 1
