"""Fixtures of the web tests (pytest-django, against the PostgreSQL of ``make services``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from tests.web.factories import PASSWORD, StaffFactory, UserFactory


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # DRF's throttles count in the cache: every test starts with none spent.
    cache.clear()
    yield
    cache.clear()


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
    assert client.login(username=user.username, password=PASSWORD)
    return client


@pytest.fixture
def alice(user: User) -> Client:
    return logged_in(user)
