"""Choosing a bot's active version, and what each version did.

A version that passed its validation is *active* (the one that plays) or *retired* (passed,
and not playing now). The owner may make any passed version active again: a roll-back to
the version that did better. A newer upload that passes afterwards becomes active in turn,
as every passing upload does. Rejected versions, and versions still being validated, are
never made active by hand, nor is a version the ladder retired for its faults
(web/pipeline/retirement.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Avg, Count, Sum

from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.signals import active_version_changed
from web.matches.models import MatchStatus, Participant, RatingChange

#: Versions the owner may make active.
PASSED = (VersionStatus.ACTIVE, VersionStatus.RETIRED)


class NotPlayable(Exception):
    """This version cannot be made active (rejected, or not validated yet)."""


@dataclass(frozen=True, slots=True)
class VersionFigures:
    """What one version did on the ladder."""

    rated_games: int = 0
    elo_change: float = 0.0
    rated_matches: int = 0
    mean_place: float | None = None


def figures(bot: Bot) -> dict[int, VersionFigures]:
    """Each version's figures by version id (two grouped queries, however many versions)."""
    games: dict[int | None, dict[str, Any]] = {
        row["version_id"]: dict(row)
        for row in RatingChange.objects.filter(bot=bot)
        .values("version_id")
        .annotate(games=Count("id"), change=Sum("delta"))
    }
    matches: dict[int | None, dict[str, Any]] = {
        row["version_id"]: dict(row)
        for row in Participant.objects.filter(
            bot=bot, match__rated=True, match__status=MatchStatus.FINISHED
        )
        .values("version_id")
        .annotate(matches=Count("id"), place=Avg("placement"))
    }
    found = {}
    for version_id in set(games) | set(matches):
        if version_id is None:
            continue
        g, m = games.get(version_id, {}), matches.get(version_id, {})
        found[version_id] = VersionFigures(
            rated_games=g.get("games", 0),
            elo_change=float(g.get("change") or 0.0),
            rated_matches=m.get("matches", 0),
            mean_place=m.get("place"),
        )
    return found


def activate(bot: Bot, number: int) -> BotVersion:
    """Make version ``number`` of ``bot`` the one that plays. It keeps the rated games it
    played before (provisional only if it has played too few)."""
    with transaction.atomic():
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        version = BotVersion.objects.select_for_update().get(bot=locked, number=number)
        if version.status not in PASSED:
            raise NotPlayable(
                f"v{number} is {version.get_status_display()}: only a version that passed its"
                " validation can play"
            )
        if version.retired_for_faults:
            raise NotPlayable(
                f"v{number} was retired for its faults ({version.retirement_reason}): upload"
                " a corrected version"
            )
        if locked.active_version_id != version.pk:
            if locked.active_version_id is not None:
                BotVersion.objects.filter(pk=locked.active_version_id).update(
                    status=VersionStatus.RETIRED
                )
            version.status = VersionStatus.ACTIVE
            version.save(update_fields=["status"])
            locked.active_version = version
            locked.games_since_version = RatingChange.objects.filter(version=version).count()
            locked.save(update_fields=["active_version", "games_since_version"])
            active_version_changed.send(sender=Bot, bot=locked)
        return version
