from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """E-mail to a bot's owner when something happens to it (``notify.py``), sent by the
    platform's worker (``tasks.py``); each kind can be turned off (``models.OptOut``)."""

    name = "web.notifications"
    label = "notifications"
    verbose_name = "Notifications"
