"""Health and readiness for a monitor: /health/live answers while the process does;
/health/ready says whether the database and the broker answer and how the queues stand."""

from __future__ import annotations

import os

import kombu
import pytest
from django.conf import LazySettings
from django.test import Client
from django.utils import timezone

from arena.broker import URGENT_QUEUE
from arena.contract import MatchKind
from tests.web.factories import MatchFactory
from web.matches.models import MatchStatus

pytestmark = pytest.mark.django_db

REDIS_URL = os.environ.get("CUCUMBERS_TEST_REDIS_URL", "redis://127.0.0.1:6379/7")


def test_live_answers_without_asking_anything(client: Client) -> None:
    response = client.get("/health/live")
    assert response.status_code == 200 and response.content == b"ok\n"


def test_ready_reports_the_queues_the_oldest_queued_match_and_recent_workers(
    client: Client, settings: LazySettings
) -> None:
    settings.CELERY_BROKER_URL = REDIS_URL
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    with kombu.Connection(REDIS_URL) as broker:
        queue = broker.SimpleQueue(URGENT_QUEUE)
        queue.clear()
        queue.put({"probe": 1})
        try:
            MatchFactory(kind=MatchKind.LADDER)
            MatchFactory(status=MatchStatus.RUNNING, worker="rack-1", started_at=timezone.now())
            response = client.get("/health/ready")
        finally:
            queue.clear()
            queue.close()
    body = response.json()
    assert response.status_code == 200 and body["status"] == "ready"
    assert body["database"] == body["broker"] == "ok"
    assert body["queue_messages"]["urgent"] == 1
    assert body["queued_matches"] == 1 and body["oldest_queued_seconds"] >= 0
    assert body["running_matches"] == 1 and body["workers_seen"] == ["rack-1"]
    assert "no-cache" in response["Cache-Control"] or "no-store" in response["Cache-Control"]


def test_ready_is_503_when_the_broker_does_not_answer(
    client: Client, settings: LazySettings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"  # nothing listens there
    settings.CELERY_BROKER_TRANSPORT_OPTIONS = {}
    response = client.get("/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["broker"], body["database"]) == ("not ready", "unavailable", "ok")
    assert "127.0.0.1:9" not in response.content.decode()  # no error text to the world
    assert "the broker does not answer" in caplog.text
