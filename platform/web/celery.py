"""The Celery app. Settings come from Django's (``CELERY_*``): acks late, one message per
worker process at a time, tasks given back when a worker dies, soft and hard time limits.

Run a worker with ``celery -A web worker`` and the scheduler with ``celery -A web beat``
(``platform/`` on the path; ``deploy/run.py`` does both for ``make run``).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "web.settings")

app = Celery("web", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
