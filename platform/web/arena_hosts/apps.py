from __future__ import annotations

from django.apps import AppConfig


class ArenaHostsConfig(AppConfig):
    """The arena hosts the platform trusts, by name and public key, and the keys of the
    messages between the site and the arena (``keys.py``)."""

    name = "web.arena_hosts"
    label = "arena_hosts"
    verbose_name = "Arena hosts"
