"""The figures of the arena's pages: the public arena page (queued and running matches by
kind, the last hour's throughput, how long an upload waits for its verdict and its first
rated game), a queued match's place in its queue, and the staff status page (the same,
with running matches and recent failures)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Q, Sum
from django.utils import timezone

from arena.broker import DEBUT_QUEUE, queue_for
from arena.contract import MatchKind
from web.matches.models import Match, MatchStatus

from .upload_waits import WaitSpread, upload_waits

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


def place_in_queue(match: Match) -> int:
    """How many queued matches of the same queue are ahead of ``match`` (the arena takes a
    queue oldest first: validations and challenges share one; a new version's debut, the
    tournaments and the routine ladder have their own)."""
    return places_in_queue([match])[match.pk]


def places_in_queue(matches: Sequence[Match]) -> dict[int, int]:
    """:func:`place_in_queue` of each of ``matches`` by id, in one query per queue among
    them (a page that shows several waits: My bots)."""
    by_queue: dict[str, list[Match]] = {}
    for match in matches:
        by_queue.setdefault(queue_for(match.kind, debut=match.debut), []).append(match)
    places: dict[int, int] = {}
    for queue, waiting in by_queue.items():
        same_queue = Q(debut=True) if queue == DEBUT_QUEUE else Q(pk__in=[])
        same_queue |= Q(debut=False, kind__in=[k for k in MatchKind if queue_for(k) == queue])
        counts = Match.objects.filter(same_queue, status=MatchStatus.QUEUED).aggregate(
            **{f"ahead_of_{m.pk}": Count("pk", filter=Q(pk__lt=m.pk)) for m in waiting}
        )
        places |= {m.pk: counts[f"ahead_of_{m.pk}"] for m in waiting}
    return places


@dataclass(frozen=True, slots=True)
class ArenaFigures:
    """What anyone may know of the arena's load (no match of anyone's in particular)."""

    queued: dict[str, int]
    running: dict[str, int]
    finished_last_hour: int
    games_last_hour: int
    verdict: WaitSpread  # upload to validation verdict (upload_waits.py)
    first_rated: WaitSpread  # upload to the version's first rated game


def arena_figures() -> ArenaFigures:
    now = timezone.now()
    hour_ago = now - timedelta(hours=1)

    def by_kind(status: str) -> dict[str, int]:
        rows = Match.objects.filter(status=status).values_list("kind").annotate(n=Count("id"))
        return dict(rows.values_list("kind", "n"))

    totals = Match.objects.filter(status=MatchStatus.FINISHED, finished_at__gte=hour_ago).aggregate(
        matches=Count("id"), games=Sum("games_planned")
    )
    verdict, first_rated = upload_waits(now)
    return ArenaFigures(
        queued=by_kind(MatchStatus.QUEUED),
        running=by_kind(MatchStatus.RUNNING),
        finished_last_hour=totals["matches"] or 0,
        games_last_hour=totals["games"] or 0,
        verdict=verdict,
        first_rated=first_rated,
    )
