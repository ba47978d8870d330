"""The platform's Celery app: it sends matches to the arena workers and serves what they
send back. Settings come from Django's (``CELERY_*``), delivery from
:data:`arena.broker.DELIVERY` (acks late, one message at a time, tasks given back when a
worker dies), the same as the arena workers'.

The platform's worker and the scheduler: ``celery -A web worker -B`` (``platform/`` on the
path); it serves the queues this app declares, :data:`arena.broker.PLATFORM_QUEUES` (reports
before the periodic jobs). It runs no bot: matches are
played by arena workers, ``python -m arena worker``, which need only the broker and a Docker
engine (``deploy/run.py`` starts one of each for ``make run``).
"""

from __future__ import annotations

import logging
import os

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger, worker_init
from kombu import Queue  # type: ignore[attr-defined]  # kombu declares no exports

from arena.broker import DELIVERY, PLATFORM_QUEUES
from arena.logs import log_format, use_json_on

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "web.settings")

app = Celery("web", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(DELIVERY)
# Declared here, so that a worker started without -Q serves exactly these, in this order.
app.conf.task_queues = [Queue(name) for name in PLATFORM_QUEUES]  # type: ignore[no-untyped-call]
app.autodiscover_tasks()


def _json_lines(logger: logging.Logger, **_: object) -> None:
    """LOG_FORMAT=json: the worker's log goes through Celery's handlers (Celery replaces the
    root logger's at start), which then write JSON lines like the web server's."""
    if log_format() == "json":
        use_json_on(logger)


after_setup_logger.connect(_json_lines, weak=False)
after_setup_task_logger.connect(_json_lines, weak=False)


def _require_signing_key(**_: object) -> None:
    """The platform's worker sends jobs (retries, the reaper's, the ladder's): in production
    it does not start without the key that signs them."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    from web.arena_hosts.keys import require_signing_key

    if settings.DEBUG:
        return
    try:
        require_signing_key()
    except ImproperlyConfigured as error:
        # SystemExit: Celery logs and ignores a signal handler's ordinary exceptions.
        raise SystemExit(f"platform worker: error: {error}") from None


worker_init.connect(_require_signing_key, weak=False)
