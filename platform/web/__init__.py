"""The Cucumber Arena site: a Django project whose apps live beside its settings.

Imported as ``web`` (``platform/`` is on the path, never a package itself). The Celery app
is loaded with the project so that ``@shared_task`` binds to it.
"""

from __future__ import annotations

from .celery import app as celery_app

__all__ = ["celery_app"]
