"""``GET /api/bots/<id>/stats/``: the bot page's chart data (web.pages.charts) as JSON,
public like the page, read-only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from web.bots import access
from web.pages.charts import ELO_POINTS, HEAD_TO_HEAD, bot_stats

#: Bounds of the ``points`` parameter: a full 10,000-game history is never sent as is.
MAX_POINTS = 2000
MIN_POINTS = 4
#: The most head-to-head rows.
MAX_OPPONENTS = 50


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


class StatsQuery(serializers.Serializer[Any]):
    """The stats' query parameters: out of bounds or not a number is a 400."""

    points = serializers.IntegerField(
        min_value=MIN_POINTS,
        max_value=MAX_POINTS,
        default=ELO_POINTS,
        help_text="most Elo points returned",
    )
    opponents = serializers.IntegerField(
        min_value=1, max_value=MAX_OPPONENTS, default=HEAD_TO_HEAD, help_text="head-to-head rows"
    )


class BotStatsView(generics.GenericAPIView[Any]):
    """A bot's Elo history (downsampled), placements per table size and its head-to-head
    against the bots it met most, over its rated games: what its page charts."""

    serializer_class = BotStatsSerializer
    filter_backends: list[Any] = []

    @extend_schema(parameters=[StatsQuery])
    def get(self, request: Request, bot_pk: int) -> Response:
        bot = access.public_bot(bot_pk)
        # A plain dict: DRF reads an empty value of a QueryDict as absent (the default).
        query = StatsQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        stats = bot_stats(
            bot,
            elo_points=query.validated_data["points"],
            opponents=query.validated_data["opponents"],
        )
        row = {
            "bot": bot.pk,
            "elo": stats.elo,
            "placements": stats.placements,
            "head_to_head": stats.head_to_head,
        }
        return Response(BotStatsSerializer(row).data)
