from __future__ import annotations

from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Tournaments, their entries and standings; their matches are the pipeline's
    (web/pipeline/kinds/tournament.py)."""

    name = "web.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"
