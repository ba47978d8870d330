from __future__ import annotations

from django.apps import AppConfig


class PagesConfig(AppConfig):
    name = "web.pages"
    label = "pages"
    verbose_name = "Pages"
