"""The platform's Elo settings (``ELO_*`` and ``PROVISIONAL_GAMES``, docs/ratings.md) as the
arena's :class:`arena.rating.EloSettings`: what rates a match and what a bot's page says
about its K are read from one place."""

from __future__ import annotations

from django.conf import settings

from arena.rating import EloSettings


def elo_settings() -> EloSettings:
    return EloSettings(
        k=float(settings.ELO_K),
        min_k=float(settings.ELO_MIN_K),
        provisional_k=float(settings.ELO_PROVISIONAL_K),
        provisional_games=settings.PROVISIONAL_GAMES,
    )
