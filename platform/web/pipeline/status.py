"""The figures of the staff status page: queue depth, running matches, throughput over the
last hour and recent failures."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Sum
from django.utils import timezone

from web.matches.models import Match, MatchStatus

RECENT_FAILURES = 20


@dataclass(frozen=True, slots=True)
class PipelineStatus:
    queued: dict[str, int]
    running: list[Match]
    finished_last_hour: int
    games_last_hour: int
    failed_last_hour: int
    recent_failures: list[Match]


def pipeline_status() -> PipelineStatus:
    hour_ago = timezone.now() - timedelta(hours=1)
    queued = dict(
        Match.objects.filter(status=MatchStatus.QUEUED)
        .values_list("kind")
        .annotate(n=Count("id"))
        .values_list("kind", "n")
    )
    finished = Match.objects.filter(status=MatchStatus.FINISHED, finished_at__gte=hour_ago)
    totals = finished.aggregate(matches=Count("id"), games=Sum("games_planned"))
    return PipelineStatus(
        queued=queued,
        running=list(Match.objects.filter(status=MatchStatus.RUNNING).order_by("started_at")),
        finished_last_hour=totals["matches"] or 0,
        games_last_hour=totals["games"] or 0,
        failed_last_hour=Match.objects.filter(
            status=MatchStatus.FAILED, finished_at__gte=hour_ago
        ).count(),
        recent_failures=list(
            Match.objects.filter(status=MatchStatus.FAILED).order_by("-finished_at")[
                :RECENT_FAILURES
            ]
        ),
    )
