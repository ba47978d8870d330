"""``/api/tournaments/``: the events, each with its entries, live standings (score with its
95% interval), head-to-head records and schedule; entering and withdrawing a bot."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from web.bots.models import GAME_CHOICES
from web.tournaments.entering import EntryError, enter, withdraw
from web.tournaments.models import Entry, Tournament, TournamentStatus
from web.tournaments.standings import Standings, standings
from web.users import signed_in

from .bounds import LARGEST_ID
from .errors import Refused
from .fields import JsonInteger
from .filters import StrictFilterSet


class TournamentEntrySerializer(serializers.ModelSerializer[Entry]):
    version = serializers.IntegerField(
        source="version.number",
        read_only=True,
        allow_null=True,
        default=None,
        help_text="the version frozen at the start (empty before)",
    )

    class Meta:
        model = Entry
        fields = ["id", "bot", "name", "version", "entered_at"]
        read_only_fields = fields


class TournamentStandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    entry = serializers.IntegerField(source="entry.pk")
    bot = serializers.IntegerField(source="entry.bot_id", allow_null=True)
    name = serializers.CharField(source="entry.name")
    score = serializers.FloatField(
        allow_null=True, help_text="mean share of the table finished ahead of (0 to 1)"
    )
    score_low = serializers.FloatField(allow_null=True, help_text="its 95% interval's low end")
    score_high = serializers.FloatField(allow_null=True, help_text="its high end")
    close_to_above = serializers.BooleanField(
        help_text="its interval overlaps the one ranked above: not separated"
    )
    mean_place = serializers.FloatField(allow_null=True)
    matches = serializers.IntegerField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    faults = serializers.IntegerField()


class TournamentHeadToHeadSerializer(serializers.Serializer[Any]):
    entry = serializers.IntegerField()
    opponent = serializers.IntegerField()
    ahead = serializers.IntegerField(help_text="games the entry finished ahead of the opponent")
    behind = serializers.IntegerField()


class TournamentTableSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    rotation = serializers.IntegerField(
        help_text="the seat rotation of the table's deals this match plays (from 0)"
    )
    match = serializers.IntegerField(source="match_id")
    status = serializers.CharField(source="match.status")
    entries = serializers.ListField(
        child=serializers.IntegerField(), help_text="entry ids in the match's seat order"
    )


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    entrants = serializers.IntegerField(read_only=True)
    url = serializers.SerializerMethodField()

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "description",
            "game",
            "format",
            "status",
            "table_size_min",
            "table_size_max",
            "rounds",
            "deals_per_table",
            "rated",
            "entry_deadline",
            "starts_at",
            "started_at",
            "finished_at",
            "cancel_reason",
            "entrants",
            "url",
        ]
        read_only_fields = fields

    def get_url(self, tournament: Tournament) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(tournament.get_absolute_url())


class TournamentDetailSerializer(TournamentSerializer):
    progress = serializers.SerializerMethodField(
        help_text="status:matches played; changes whenever the page would"
    )
    entries = TournamentEntrySerializer(many=True, read_only=True)
    standings = serializers.SerializerMethodField()
    head_to_head = serializers.SerializerMethodField()
    tables = serializers.SerializerMethodField()

    class Meta(TournamentSerializer.Meta):
        fields = [*TournamentSerializer.Meta.fields, "progress", "entries", "standings",
                  "head_to_head", "tables"]  # fmt: skip
        read_only_fields = fields

    def _standings(self, tournament: Tournament) -> Standings | None:
        if tournament.status == TournamentStatus.OPEN:
            return None
        # One computation per tournament and answer, shared by the fields that show it
        # (keyed: a list serializer reuses one child for every item).
        computed: dict[int, Standings] = self.__dict__.setdefault("_standings_of", {})
        if tournament.pk not in computed:
            computed[tournament.pk] = standings(tournament)
        return computed[tournament.pk]

    def get_progress(self, tournament: Tournament) -> str:
        table = self._standings(tournament)
        return f"{tournament.status}:{table.matches_done if table else 0}"

    @extend_schema_field(TournamentStandingSerializer(many=True))
    def get_standings(self, tournament: Tournament) -> list[dict[str, Any]]:
        table = self._standings(tournament)
        return list(TournamentStandingSerializer(table.rows, many=True).data) if table else []

    @extend_schema_field(TournamentHeadToHeadSerializer(many=True))
    def get_head_to_head(self, tournament: Tournament) -> list[dict[str, int]]:
        table = self._standings(tournament)
        if not table:
            return []
        return [
            {"entry": a, "opponent": b, "ahead": record.ahead, "behind": record.behind}
            for (a, b), record in sorted(table.head_to_head.items())
        ]

    @extend_schema_field(TournamentTableSerializer(many=True))
    def get_tables(self, tournament: Tournament) -> list[dict[str, Any]]:
        table = self._standings(tournament)
        return list(TournamentTableSerializer(table.tables, many=True).data) if table else []


class TournamentFilter(StrictFilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES)
    status = filters.ChoiceFilter(choices=TournamentStatus.choices)

    class Meta:
        model = Tournament
        fields = ["game", "status"]


class TournamentViewSet(viewsets.ReadOnlyModelViewSet[Tournament]):
    """Tournaments, newest start first; one with its standings and schedule."""

    filterset_class = TournamentFilter
    lookup_value_regex = r"[0-9]+"

    def get_queryset(self) -> QuerySet[Tournament]:
        return Tournament.objects.annotate(entrants=Count("entries")).order_by("-starts_at", "-id")

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Tournament]]:
        return TournamentDetailSerializer if self.action == "retrieve" else TournamentSerializer


class NewEntrySerializer(serializers.Serializer[Any]):
    """An entry asked for (``NewEntryRequest`` in the schema)."""

    bot = JsonInteger(min_value=1, max_value=LARGEST_ID)


class EntryListView(generics.GenericAPIView[Any]):
    """Enter one of your bots (one per owner, before entries close)."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = NewEntrySerializer

    @extend_schema(responses={201: TournamentEntrySerializer})
    def post(self, request: Request, tournament_pk: int) -> Response:
        data = NewEntrySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        _tournament_or_404(tournament_pk)
        try:
            entry = enter(signed_in(request), tournament_pk, data.validated_data["bot"])
        except EntryError as error:
            raise Refused(error, request) from None
        return Response(TournamentEntrySerializer(entry).data, status=status.HTTP_201_CREATED)


class EntryView(generics.GenericAPIView[Any]):
    """Withdraw your entry before entries close."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = TournamentEntrySerializer

    @extend_schema(responses={204: None})
    def delete(self, request: Request, tournament_pk: int, entry_pk: int) -> Response:
        _tournament_or_404(tournament_pk)
        try:
            withdraw(signed_in(request), tournament_pk, entry_pk)
        except EntryError as error:
            raise Refused(error, request) from None
        return Response(status=status.HTTP_204_NO_CONTENT)


def _tournament_or_404(pk: int) -> None:
    generics.get_object_or_404(Tournament.objects.all(), pk=pk)
