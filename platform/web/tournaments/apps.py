from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "web.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # A tournament finishes when its last match does: hear of every ended match.
        from web.pipeline.signals import match_ended

        from .lifecycle import on_match_ended

        match_ended.connect(on_match_ended, dispatch_uid="tournaments.on_match_ended")
