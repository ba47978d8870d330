from __future__ import annotations

from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "web.api"
    label = "api"
    verbose_name = "API"

    def ready(self) -> None:
        from . import schema  # noqa: F401  (registers the schema extension)
