"""API views: thin, over the same services and access rules as the pages."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, generics, mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer

from web.accounts.models import ApiToken
from web.bots import access
from web.bots.errors import UploadError
from web.bots.models import GAMES, Bot, BotVersion
from web.bots.ranking import ranks, tied_with_above
from web.bots.uploads import create_bot, read_upload, upload_version
from web.matches.access import visible_matches
from web.matches.models import Match, MatchGame, MatchStatus
from web.matches.privacy import HELD_MESSAGE, replay_seen, sight
from web.pipeline.kinds.challenge import ChallengeError, create_challenge
from web.refusals import Problem
from web.users import signed_in

from . import serializers as s
from .errors import Refused
from .filters import BotFilter, MatchFilter

#: What an id or a number in the API's paths looks like: anything else is no address (a 404).
IDS = r"[0-9]+"


class IsOwnerOrReadOnly(permissions.BasePermission):
    message = "only the bot's owner can change it"

    def has_object_permission(self, request: Request, view: Any, obj: Bot) -> bool:
        return request.method in permissions.SAFE_METHODS or access.is_owner(request.user, obj)


@extend_schema(parameters=[s.LeaderboardQuery])
class LeaderboardView(generics.ListAPIView[Bot]):
    """Bots that play ranked games in one game: the rated ones best first (``rank`` counts
    from 1, as on the site's leaderboard and bot pages), then those with no rated game yet
    (``rank`` null)."""

    serializer_class = s.LeaderboardEntrySerializer
    filter_backends: list[Any] = []

    def get_queryset(self) -> QuerySet[Bot]:
        # A plain dict: DRF reads an empty value of a QueryDict as absent (the default).
        query = s.LeaderboardQuery(data=self.request.query_params.dict())
        query.is_valid(raise_exception=True)  # an unknown game is a 400, as in the filters
        game = query.validated_data["game"]
        return Bot.objects.on_leaderboard(game).select_related("owner", "active_version")

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        listed = self.get_queryset()
        # The page's ids from the index alone, then those rows (as the leaderboard page).
        ids = self.paginate_queryset(listed.values_list("pk", flat=True))
        assert ids is not None and self.paginator is not None
        first = self.paginator.page.start_index()  # type: ignore[attr-defined]
        # The bot just above the page decides whether the first row is tied with it.
        above_id = listed.values_list("pk", flat=True)[first - 2] if first > 1 and ids else None
        found = listed.in_bulk([*ids, *([above_id] if above_id else [])])
        page = [found[pk] for pk in ids if pk in found]
        tied = tied_with_above(page, found.get(above_id) if above_id else None)
        for rank, bot in zip(ranks(page, first), page, strict=True):
            # The entry's fields read these: on this instance rank hides the rank() method.
            bot.rank = rank  # type: ignore[method-assign,assignment]
            bot.tied_with_above = bot.pk in tied  # type: ignore[attr-defined]
        data = self.get_serializer(page, many=True).data
        return self.get_paginated_response(data)


class BotViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet[Bot],
):
    """Bots: public to read; create your own; only the owner (de)activates one."""

    queryset = Bot.objects.select_related("owner", "active_version").order_by("id")
    filterset_class = BotFilter
    permission_classes = [permissions.IsAuthenticatedOrReadOnly, IsOwnerOrReadOnly]
    lookup_value_regex = IDS
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_serializer_class(self) -> type[Any]:
        return s.BotUpdateSerializer if self.action == "partial_update" else s.BotSerializer

    def perform_create(self, serializer: BaseSerializer[Bot]) -> None:
        data = serializer.validated_data
        try:
            serializer.instance = create_bot(signed_in(self.request), data["name"], data["game"])
        except UploadError as error:
            raise Refused(error, self.request) from None

    @extend_schema(responses=s.BotSerializer)
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        super().partial_update(request, *args, **kwargs)
        return Response(s.BotSerializer(self.get_object(), context={"request": request}).data)


def _upload_response(request: Request, version: BotVersion) -> Response:
    context = {"request": request}
    body = {
        "bot": s.BotSerializer(version.bot, context=context).data,
        "version": s.VersionSerializer(version, context=context).data,
    }
    return Response(body, status=status.HTTP_201_CREATED)


class BotVersionViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet[BotVersion]
):
    """A bot's versions; ``POST`` uploads a new one (multipart, the bot's owner only)."""

    serializer_class = s.VersionSerializer
    # The upload sends a file: multipart, and only multipart (one content type per operation).
    parser_classes = [MultiPartParser]
    lookup_field = "number"
    lookup_value_regex = IDS
    filter_backends: list[Any] = []

    queryset = BotVersion.objects.all()  # for the schema; requests use get_queryset

    def get_queryset(self) -> QuerySet[BotVersion]:
        if getattr(self, "swagger_fake_view", False):
            return BotVersion.objects.none()
        bot = access.public_bot(int(self.kwargs["bot_pk"]))
        return bot.versions.select_related("bot__owner").order_by("-number")

    @extend_schema(
        request={"multipart/form-data": s.UploadSerializer},
        responses={201: s.UploadResultSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        bot = access.public_bot(int(self.kwargs["bot_pk"]))
        form = s.UploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            name, data = read_upload(form.validated_data["file"])
            version = upload_version(signed_in(request), name, data, bot=bot)
        except UploadError as error:
            raise Refused(error, request) from None
        return _upload_response(request, version)


class UploadView(generics.GenericAPIView[Any]):
    """Upload a version by bot name (``cucumbers upload``): creates the bot when ``game``
    is given and you have no bot of that name yet."""

    parser_classes = [MultiPartParser]
    permission_classes = [permissions.IsAuthenticated]
    serializer_class = s.NamedUploadSerializer

    @extend_schema(
        request={"multipart/form-data": s.NamedUploadSerializer},
        responses={201: s.UploadResultSerializer},
    )
    def post(self, request: Request) -> Response:
        form = s.NamedUploadSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        bot_name = form.validated_data["bot"]
        game = form.validated_data.get("game")
        owner = signed_in(request)
        bot = Bot.objects.filter(owner=owner, name__iexact=bot_name).first()
        try:
            if bot is None and game is None:
                raise UploadError(
                    Problem.UNKNOWN_BOT,
                    f"you have no bot named {bot_name!r}; give its game"
                    f" ({' or '.join(GAMES)}) to create it",
                )
            if bot is not None and game is not None and bot.game != game:
                raise UploadError(
                    Problem.GAME_MISMATCH,
                    f"your bot {bot_name!r} plays {bot.game}, not {game}",
                )
            name, data = read_upload(form.validated_data["file"])
            if bot is None:
                version = upload_version(owner, name, data, new_bot_name=bot_name, game=game)
            else:
                version = upload_version(owner, name, data, bot=bot)
        except UploadError as error:
            raise Refused(error, request) from None
        return _upload_response(request, version)


class MatchViewSet(viewsets.ReadOnlyModelViewSet[Match]):
    """Matches with their participants and games; filter by game, bot, owner, kind, status.
    A validation match is visible to the validated bot's owner and staff only."""

    serializer_class = s.MatchSerializer
    filterset_class = MatchFilter
    lookup_value_regex = IDS
    queryset = Match.objects.all()  # for the schema; requests use get_queryset

    def get_queryset(self) -> QuerySet[Match]:
        matches = visible_matches(self.request.user)
        return matches.prefetch_related("participants__version", "games").order_by("-id")

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, url_path=r"games/(?P<number>\d+)/replay", url_name="replay")
    def replay(self, request: Request, pk: str, number: str) -> Response:
        """One game's replay (``cucumbers-replay/1``) as JSON; the details of faults of
        bots that are not the viewer's are withheld."""
        match = get_object_or_404(
            self.get_queryset(),
            pk=pk,
            status__in=[MatchStatus.FINISHED, MatchStatus.HELD, MatchStatus.FAILED],
        )
        game = get_object_or_404(MatchGame, match=match, number=int(number))
        if not match.results_public:
            raise exceptions.PermissionDenied(HELD_MESSAGE, code="replay_held")
        seen = sight(request.user, list(match.participants.select_related("bot")))
        return Response(replay_seen(game, seen))


class TokenViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[ApiToken],
):
    """Your API tokens. The token itself is in the creation response only; ``DELETE``
    revokes one."""

    serializer_class = s.TokenSerializer
    permission_classes = [permissions.IsAuthenticated]
    filter_backends: list[Any] = []
    lookup_value_regex = IDS

    queryset = ApiToken.objects.all()  # for the schema; requests use get_queryset

    def get_queryset(self) -> QuerySet[ApiToken]:
        if getattr(self, "swagger_fake_view", False):
            return ApiToken.objects.none()
        return ApiToken.objects.filter(user=signed_in(self.request))

    @extend_schema(responses={201: s.NewTokenSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if isinstance(request.auth, ApiToken):
            # A leaked token must not outlive its own revocation by minting others.
            raise exceptions.PermissionDenied(
                "tokens are created from a signed-in web session (your account's token page),"
                " never with a token"
            )
        form = self.get_serializer(data=request.data)
        form.is_valid(raise_exception=True)
        row, token = ApiToken.issue(signed_in(request), form.validated_data["name"])
        data = dict(self.get_serializer(row).data, token=token)
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: ApiToken) -> None:
        instance.revoke()


class ChallengeView(generics.GenericAPIView[Any]):
    """Ask for an unrated match between your bot and the bots you pick (quota per hour)."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = s.NewChallengeSerializer

    @extend_schema(responses={201: s.ChallengeCreatedSerializer})
    def post(self, request: Request) -> Response:
        data = s.NewChallengeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            match = create_challenge(
                signed_in(request),
                data.validated_data["bot"],
                data.validated_data["opponents"],
                data.validated_data.get("games"),
            )
        except ChallengeError as error:
            raise Refused(error, request) from None
        url = request.build_absolute_uri(match.get_absolute_url())
        return Response(
            {"id": match.pk, "status": match.status, "url": url}, status=status.HTTP_201_CREATED
        )
