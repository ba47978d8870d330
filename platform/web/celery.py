"""The Celery app. Settings come from Django's (``CELERY_*``): acks late, one message per
worker process at a time, tasks given back when a worker dies, soft and hard time limits.

Match workers: ``celery -A web worker -Q urgent,ladder`` (urgent first); the scheduler and
the periodic jobs: ``celery -A web worker -B -Q maintenance`` (``platform/`` on the path;
``deploy/run.py`` starts both for ``make run``). A match worker with ``SANDBOX=docker`` stops
at start when the Docker engine does not answer, and pauses its queues while it is lost.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup

from arena.engine_watch import EngineWatch, require_engine

from .pipeline.queues import MATCH_QUEUES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "web.settings")

app = Celery("web", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def runs_bots_in_docker(queues: object) -> bool:
    """Whether a worker consuming ``queues`` plays matches in the Docker sandbox."""
    from django.conf import settings

    return settings.SANDBOX == "docker" and any(q in MATCH_QUEUES for q in queues)  # type: ignore[attr-defined]


@celeryd_after_setup.connect
def _engine_required(sender: str, instance: Any, **kwargs: Any) -> None:
    # No engine, no match worker: it could only fail (or, were it allowed to fall back, run
    # bots unsandboxed). The maintenance worker needs none.
    if runs_bots_in_docker(instance.app.amqp.queues.consume_from or {}):
        require_engine()


class MatchQueuesWatch(EngineWatch):
    """Pauses the match queues while the engine is down (Docker sandbox only)."""

    queues = MATCH_QUEUES

    def include_if(self, parent: Any) -> bool:
        from django.conf import settings

        return bool(settings.SANDBOX == "docker")


app.steps["consumer"].add(MatchQueuesWatch)
