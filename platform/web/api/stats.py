"""``GET /api/bots/<id>/stats/``: the bot page's chart data (web.pages.charts) as JSON,
public like the page, read-only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from web.bots import access
from web.pages.charts import ELO_POINTS, HEAD_TO_HEAD, bot_stats

#: Bounds of the ``points`` parameter: a full 10,000-game history is never sent as is.
MAX_POINTS = 2000
MIN_POINTS = 4


class RatingPointSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(help_text="the bot's rated game number; 0: before its first")
    rating = serializers.FloatField(help_text="Elo after that game")
    at = serializers.DateTimeField()
    match = serializers.IntegerField(source="match_id")


class EloSerializer(serializers.Serializer[Any]):
    games = serializers.IntegerField(help_text="rated games in the whole history")
    downsampled = serializers.BooleanField(
        help_text="true when points keep only the ends and each bucket's lowest and highest"
    )
    lowest = RatingPointSerializer(allow_null=True)
    highest = RatingPointSerializer(allow_null=True)
    points = RatingPointSerializer(many=True)


class PlacementsSerializer(serializers.Serializer[Any]):
    table_size = serializers.IntegerField(source="size")
    games = serializers.IntegerField()
    counts = serializers.ListField(
        child=serializers.IntegerField(), help_text="games at each place, first place first"
    )
    shares = serializers.ListField(child=serializers.FloatField())


class HeadToHeadSerializer(serializers.Serializer[Any]):
    opponent = serializers.IntegerField(source="opponent_id", help_text="the opponent's bot id")
    name = serializers.SerializerMethodField()
    games = serializers.IntegerField(help_text="rated games both played")
    above = serializers.IntegerField(help_text="games where this bot placed above the opponent")
    place_difference = serializers.FloatField(
        help_text="mean of the opponent's place minus this bot's (positive: this bot ahead)"
    )

    def get_name(self, row: Any) -> str | None:
        return row.opponent_name  # type: ignore[no-any-return]


class BotStatsSerializer(serializers.Serializer[Mapping[str, object]]):
    bot = serializers.IntegerField()
    elo = EloSerializer()
    placements = PlacementsSerializer(many=True)
    head_to_head = HeadToHeadSerializer(many=True)


class BotStatsView(generics.GenericAPIView[Any]):
    """A bot's Elo history (downsampled), placements per table size and its head-to-head
    against the bots it met most, over its rated games: what its page charts."""

    serializer_class = BotStatsSerializer
    filter_backends: list[Any] = []

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "points",
                int,
                description=f"most Elo points returned ({MIN_POINTS}–{MAX_POINTS})",
                default=ELO_POINTS,
            ),
            OpenApiParameter(
                "opponents", int, description="head-to-head rows (1–50)", default=HEAD_TO_HEAD
            ),
        ]
    )
    def get(self, request: Request, bot_pk: int) -> Response:
        bot = access.public_bot(bot_pk)
        points = _bounded(request.query_params.get("points"), ELO_POINTS, MIN_POINTS, MAX_POINTS)
        opponents = _bounded(request.query_params.get("opponents"), HEAD_TO_HEAD, 1, 50)
        stats = bot_stats(bot, elo_points=points, opponents=opponents)
        row = {
            "bot": bot.pk,
            "elo": stats.elo,
            "placements": stats.placements,
            "head_to_head": stats.head_to_head,
        }
        return Response(BotStatsSerializer(row).data)


def _bounded(raw: str | None, default: int, low: int, high: int) -> int:
    """A query parameter clamped to its range; junk means the default, as for pagination."""
    try:
        return min(max(int(raw), low), high) if raw is not None else default
    except ValueError:
        return default
