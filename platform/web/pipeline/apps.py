from __future__ import annotations

from django.apps import AppConfig


class PipelineConfig(AppConfig):
    """The match pipeline: no models of its own (it moves those of ``bots`` and
    ``matches``); an app so that Celery finds its tasks, and so that its kinds are
    registered and hear of new versions when Django starts."""

    name = "web.pipeline"
    label = "pipeline"
    verbose_name = "Match pipeline"

    def ready(self) -> None:
        from web.bots.signals import active_version_changed, version_submitted

        from .kind import register
        from .kinds import POLICIES
        from .kinds.ladder import on_active_version_changed
        from .kinds.validation import on_version_submitted

        for policy in POLICIES:
            register(policy)
        version_submitted.connect(on_version_submitted, dispatch_uid="pipeline.validation")
        active_version_changed.connect(on_active_version_changed, dispatch_uid="pipeline.ladder")
