"""How long an upload waits, as the arena page and ``GET /api/arena/`` tell it: upload to
validation verdict, and upload to the version's first rated game, over the last day's
uploads of everyone but the house (its bots are uploaded by the platform itself, in bulk).

Honest figures: a version still waiting counts with its wait so far (a queue that keeps
new versions waiting shows, instead of leaving them out until they are through). A version
that will never get there is left out: a rejected one from the first rated game, and one
that stopped waiting without a game (replaced by a newer upload, or its bot deactivated).
Percentiles are nearest-rank: the p95 is a wait that 95% of the uploads did not exceed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Min
from django.utils import timezone

from web.bots.house import HOUSE_USERNAME
from web.bots.models import PENDING_STATUSES, BotVersion, VersionStatus

from .models import RatingChange

#: How far back the figures look: the uploads of the last day.
WAIT_WINDOW = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class WaitSpread:
    """Waits in seconds over ``uploads`` uploads, ``waiting`` of them still waiting."""

    median: float | None
    p95: float | None
    uploads: int
    waiting: int


def nearest_rank(values: Sequence[float], share: float) -> float | None:
    """The smallest value that at least ``share`` of ``values`` do not exceed."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def spread(done: Sequence[float], waiting: Sequence[float]) -> WaitSpread:
    spans = [*done, *waiting]
    return WaitSpread(nearest_rank(spans, 0.5), nearest_rank(spans, 0.95), len(spans), len(waiting))


def upload_waits(now: datetime | None = None) -> tuple[WaitSpread, WaitSpread]:
    """(upload → verdict, upload → first rated game) over the window's uploads."""
    now = now or timezone.now()
    rows = list(
        BotVersion.objects.filter(created_at__gte=now - WAIT_WINDOW)
        .exclude(bot__owner__username=HOUSE_USERNAME)
        .values_list("pk", "created_at", "validated_at", "status", "bot__active")
    )
    first_rated = dict(
        RatingChange.objects.filter(version_id__in=[row[0] for row in rows])
        .values("version_id")
        .annotate(first=Min("created_at"))
        .values_list("version_id", "first")
    )
    verdicts: list[float] = []
    verdicts_waiting: list[float] = []
    rated: list[float] = []
    rated_waiting: list[float] = []
    for pk, created, validated, status, bot_active in rows:
        waited = (now - created).total_seconds()
        if validated is not None:
            verdicts.append((validated - created).total_seconds())
        elif status in PENDING_STATUSES:
            verdicts_waiting.append(waited)
        if pk in first_rated:
            rated.append((first_rated[pk] - created).total_seconds())
        elif bot_active and (status in PENDING_STATUSES or status == VersionStatus.ACTIVE):
            rated_waiting.append(waited)
    return spread(verdicts, verdicts_waiting), spread(rated, rated_waiting)
