"""Fixtures of the web tests (pytest-django, against the PostgreSQL of ``make services``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from tests.web.factories import StaffFactory, UserFactory


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # DRF's throttles count in the cache: every test starts with none spent.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _runner_registry_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    # Choosing the Docker sandbox registers the arena's runner process-wide (and remembers
    # that it did): every test leaves the SDK's registry and that memory as it found them.
    import cucumbers.runners
    import web.sandbox

    monkeypatch.setattr(cucumbers.runners, "RUNNERS", dict(cucumbers.runners.RUNNERS))
    monkeypatch.setattr(web.sandbox, "_prepared", set())


@pytest.fixture
def dead_broker() -> Iterator[None]:
    """The Celery app's broker is a port where nothing listens (a broker that is down),
    for the test; the app's connection pools are rebuilt on both sides of it."""
    from web.celery import app

    def fresh_pools() -> None:
        app._pool = None
        app.amqp._producer_pool = None

    url = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:9/0"
    fresh_pools()
    yield
    app.conf.broker_url = url
    fresh_pools()


@pytest.fixture
def user(db: None) -> User:
    return UserFactory(username="alice")


@pytest.fixture
def other_user(db: None) -> User:
    return UserFactory(username="mallory")


@pytest.fixture
def staff(db: None) -> User:
    return StaffFactory(username="root")


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def alice(user: User) -> Client:
    return logged_in(user)
