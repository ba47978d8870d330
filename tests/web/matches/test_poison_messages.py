"""Poison on every queue, through real workers on Redis: raw garbage, JSON that is no message,
a pickle (raw, and in a message of Celery's shape with pickle as its serializer), a message of
a task no worker knows and an oversized body are pushed onto each queue of both workers
(the arena's ``urgent``, ``debut``, ``tournament``, ``review`` and ``ladder``; the platform's
``reports`` and ``maintenance``). Each is dropped, logged with its queue and counted
(arena/poison.py); both workers stay up and play on: a ladder match queued afterwards is
played and recorded."""

from __future__ import annotations

import base64
import json
import pickle
import re
import uuid
from pathlib import Path

import pytest
import redis

from arena.broker import (
    ARENA_QUEUES,
    MAINTENANCE_QUEUE,
    MATCH_QUEUES,
    PLAY_TASK,
    REPORT_TASK,
    REPORTS_QUEUE,
    REVIEW_QUEUE,
    REVIEW_TASK,
)
from tests.web.matches.arena_helpers import make_active
from tests.web.matches.celery_worker import (
    REDIS_URL,
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from web.matches.models import Match, MatchStatus
from web.pipeline.kinds.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)

#: Small enough for a test to exceed cheaply (the default is 32 MiB).
LIMIT = 256 * 1024
QUEUES = (*ARENA_QUEUES, REPORTS_QUEUE, MAINTENANCE_QUEUE)


def envelope(queue: str, task: str, body: bytes, content_type: str) -> bytes:
    """A message as kombu writes one to a Redis list (Celery's protocol 2)."""
    task_id = str(uuid.uuid4())
    return json.dumps(
        {
            "body": base64.b64encode(body).decode(),
            "content-encoding": "binary" if "pickle" in content_type else "utf-8",
            "content-type": content_type,
            "headers": {"lang": "py", "task": task, "id": task_id, "root_id": task_id},
            "properties": {
                "correlation_id": task_id,
                "delivery_mode": 2,
                "delivery_info": {"exchange": "", "routing_key": queue},
                "priority": 0,
                "body_encoding": "base64",
                "delivery_tag": str(uuid.uuid4()),
            },
        }
    ).encode()


def poison(queue: str) -> dict[str, bytes]:
    task = {REVIEW_QUEUE: REVIEW_TASK, **dict.fromkeys(MATCH_QUEUES, PLAY_TASK)}.get(
        queue, REPORT_TASK
    )
    pickled = pickle.dumps((["x"], {}, {"callbacks": None}))
    return {
        "garbage": b"x\x00\xff\xfe not a message",
        "JSON object": b'{"hello": "world"}',
        "JSON list": b"[1, 2, 3]",
        "JSON string": b'"x"',
        "wrong types": json.dumps({"body": 1, "properties": {"delivery_tag": []}}).encode(),
        "raw pickle": pickled,
        "pickle message": envelope(queue, task, pickled, "application/x-python-serialize"),
        "unknown task": envelope(queue, "no.such.task", b"[[], {}, {}]", "application/json"),
        "oversized": envelope(queue, task, b"[" + b" " * LIMIT + b"]", "application/json"),
    }


def dropped(log: Path, queue: str) -> int:
    text = log.read_text(errors="replace")
    return len(re.findall(rf"event=broker\.poison queue={queue} ", text))


def test_poison_on_every_queue_is_dropped_logged_and_counted_and_the_workers_play_on(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]
    for name in ("pia", "quo", "rex"):
        make_active(name)
    limit = {"CELERY_MAX_MESSAGE_BYTES": str(LIMIT)}
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    client = redis.Redis.from_url(REDIS_URL)
    with (
        platform_broker(**limit),
        platform_worker(platform_env(**limit), platform_log) as platform,
        arena_worker(arena_env("process", **limit), arena_log) as arena,
    ):
        for log in (platform_log, arena_log):
            wait_for(lambda log=log: " ready." in log.read_text(), 180, "the workers", log)  # type: ignore[misc]
        pushed = {queue: poison(queue) for queue in QUEUES}
        for queue, messages in pushed.items():
            for body in messages.values():
                client.lpush(queue, body)
        for queue in QUEUES:
            log = arena_log if queue in ARENA_QUEUES else platform_log
            wait_for(
                lambda queue=queue, log=log: dropped(log, queue) >= len(pushed[queue]),  # type: ignore[misc]
                60,
                f"the poison on {queue} dropped",
                log,
            )
        assert platform.poll() is None and arena.poll() is None
        for queue in QUEUES:  # nothing of it left on a queue or among the unacknowledged
            assert client.llen(queue) == 0
        assert not client.hlen("unacked") and not client.hlen("arena.unacked")
        # The workers play on: a ladder match (a whole deal set) played and recorded.
        matches = queue_ladder_matches("concombre", 1)
        wait_for(
            lambda: all(Match.objects.get(pk=m.pk).status == MatchStatus.FINISHED for m in matches),
            120,
            "a ladder match after the poison",
            arena_log,
            platform_log,
        )
        assert platform.poll() is None and arena.poll() is None
    for queue in QUEUES:
        log = arena_log if queue in ARENA_QUEUES else platform_log
        # Each one counted once (the count rises 1, 2, ... per queue), with its reason.
        assert dropped(log, queue) == len(pushed[queue]), log.read_text()[-5000:]
        assert f"queue={queue} " in log.read_text()
    arena_text, platform_text = arena_log.read_text(), platform_log.read_text()
    for text in (arena_text, platform_text):
        assert 'reason="oversized: more than 262144 bytes"' in text
        assert 'reason="not JSON' in text
        assert "dropped=9" in text
