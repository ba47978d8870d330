"""``GET /api/arena/``: the public arena page's figures as JSON: queued and running matches
by kind, the last hour's throughput, and how long an upload waits (web/matches/status.py,
web/matches/upload_waits.py). Counts only: no one's match in particular."""

from __future__ import annotations

from typing import Any

from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from web.matches.status import arena_figures
from web.matches.upload_waits import WAIT_WINDOW


class WaitSpreadSerializer(serializers.Serializer[Any]):
    median_seconds = serializers.FloatField(source="median", allow_null=True)
    p95_seconds = serializers.FloatField(
        source="p95", allow_null=True, help_text="95% of the uploads waited no longer"
    )
    uploads = serializers.IntegerField(help_text="uploads counted")
    waiting = serializers.IntegerField(
        help_text="of them still waiting, counted with their wait so far"
    )


class ArenaSerializer(serializers.Serializer[Any]):
    queued = serializers.DictField(
        child=serializers.IntegerField(), help_text="queued matches by kind"
    )
    running = serializers.DictField(
        child=serializers.IntegerField(), help_text="matches being played by kind"
    )
    finished_last_hour = serializers.IntegerField()
    games_last_hour = serializers.IntegerField()
    window_hours = serializers.FloatField(
        help_text="the waits are over the uploads of this many hours, house bots left out"
    )
    upload_to_verdict = WaitSpreadSerializer(source="verdict")
    upload_to_first_rated_game = WaitSpreadSerializer(
        source="first_rated", help_text="rejected versions left out"
    )


class ArenaView(generics.GenericAPIView[Any]):
    """How busy the arena is and how long an upload waits for its verdict and for its
    first rated game (median and 95th percentile, counting versions still waiting)."""

    serializer_class = ArenaSerializer
    filter_backends: list[Any] = []
    pagination_class = None

    def get(self, request: Request) -> Response:
        figures = arena_figures()
        row = {
            "queued": figures.queued,
            "running": figures.running,
            "finished_last_hour": figures.finished_last_hour,
            "games_last_hour": figures.games_last_hour,
            "window_hours": WAIT_WINDOW.total_seconds() / 3600,
            "verdict": figures.verdict,
            "first_rated": figures.first_rated,
        }
        return Response(ArenaSerializer(row).data)
