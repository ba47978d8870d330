from __future__ import annotations

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "web.matches"
    label = "matches"
    verbose_name = "Matches"
