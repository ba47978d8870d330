from __future__ import annotations

from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "web.bots"
    label = "bots"
    verbose_name = "Bots"
