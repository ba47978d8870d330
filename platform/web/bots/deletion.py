"""Deleting a bot: its versions and their source files go; the matches it played stay in
the public record (its seats keep the name they were played under, with no link), and the
other bots' ratings from them stand. A match it was queued for fails when it is sent
("a bot of this match was deleted"); one it is playing now is recorded without it."""

from __future__ import annotations

from django.db import transaction

from .models import Bot, bot_source_storage


def delete_bot(bot: Bot) -> None:
    """Delete ``bot`` with its versions; their sources are removed once that commits."""
    with transaction.atomic():
        sources = [str(name) for name in bot.versions.values_list("source", flat=True) if name]
        bot.delete()
        transaction.on_commit(lambda: _remove_sources(sources))


def _remove_sources(names: list[str]) -> None:
    storage = bot_source_storage()
    for name in names:
        storage.delete(name)
