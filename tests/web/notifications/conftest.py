"""The notices' tests run their tasks in the test process (Celery's eager mode): what the
platform's worker would do with them, at once, retries included; a task's failure is its
own, never raised into the code that enqueued it (as with a worker)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def eager_tasks(settings: object) -> Iterator[None]:
    from web.celery import app

    before = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, False
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"  # type: ignore[attr-defined]
    settings.SITE_URL = "https://arena.example"  # type: ignore[attr-defined]
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = before
