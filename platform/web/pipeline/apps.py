from __future__ import annotations

from django.apps import AppConfig


class PipelineConfig(AppConfig):
    """The match pipeline: no models of its own (it moves those of ``bots`` and
    ``matches``); an app so that Celery finds its tasks."""

    name = "web.pipeline"
    label = "pipeline"
    verbose_name = "Match pipeline"
