"""API representations. A bot's source never appears here; rejection details and the bot's
own output appear only to its owner and staff."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.request import Request

from cucumbers.games import GameName, rules_for
from web.accounts.models import ApiToken
from web.bots.access import sees_private
from web.bots.models import GAME_CHOICES, GAMES, Bot, BotVersion, bot_name_validator
from web.matches.models import Match, MatchGame, MatchStatus, Participant
from web.matches.privacy import (
    Sight,
    fault_moment,
    faults_seen,
    outputs_seen,
    own_faults_seen,
    sight,
)

from .bounds import LARGEST_ID
from .fields import JsonBoolean, JsonInteger, JsonString


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner = serializers.CharField(source="owner.username", read_only=True)
    name = JsonString(max_length=40, validators=[bot_name_validator])
    game = serializers.ChoiceField(choices=GAME_CHOICES)
    active_version = serializers.IntegerField(
        source="active_version.number", read_only=True, allow_null=True, default=None
    )
    win_rate = serializers.FloatField(read_only=True, allow_null=True)
    rating_low = serializers.FloatField(
        read_only=True, help_text="the low end of the Elo's 95% interval (docs/ratings.md)"
    )
    rating_high = serializers.FloatField(read_only=True, help_text="its high end")
    provisional = serializers.BooleanField(source="is_provisional", read_only=True)
    k_factor = serializers.FloatField(
        read_only=True,
        help_text="the K of its next rated game: large while provisional, then shrinking as"
        " its version plays (docs/ratings.md)",
    )
    url = serializers.SerializerMethodField()

    class Meta:
        model = Bot
        fields = [
            "id",
            "name",
            "game",
            "owner",
            "active",
            "active_version",
            "rating",
            "rating_low",
            "rating_high",
            "games",
            "wins",
            "win_rate",
            "provisional",
            "k_factor",
            "created_at",
            "url",
        ]
        # A new bot is active: (de)activate it with PATCH (BotUpdateSerializer).
        read_only_fields = ["active", "rating", "games", "wins", "created_at"]

    def get_url(self, bot: Bot) -> str:
        request: Request = self.context["request"]
        return request.build_absolute_uri(bot.get_absolute_url())


class BotUpdateSerializer(serializers.ModelSerializer[Bot]):
    active = JsonBoolean(help_text="Inactive bots keep their versions but play no games.")

    class Meta:
        model = Bot
        fields = ["active"]


class VersionSerializer(serializers.ModelSerializer[BotVersion]):
    bot = serializers.IntegerField(source="bot_id", read_only=True)
    validation_match = serializers.IntegerField(
        source="validation_match_id", read_only=True, allow_null=True
    )
    rejection_kind = serializers.CharField(
        read_only=True, allow_null=True, help_text="null when withheld: owner and staff only"
    )
    rejection_detail = serializers.CharField(
        read_only=True, allow_null=True, help_text="null when withheld: owner and staff only"
    )
    stderr_tail = serializers.CharField(
        read_only=True,
        allow_null=True,
        help_text="the bot's own output; null when withheld: owner and staff only",
    )

    retired_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="when the ladder retired it for its faults; null otherwise",
    )
    retirement_reason = serializers.CharField(
        read_only=True,
        help_text="why the ladder retired it (its faults, docs/platform.md); empty otherwise",
    )

    PRIVATE = ("rejection_kind", "rejection_detail", "stderr_tail")

    class Meta:
        model = BotVersion
        fields = [
            "bot",
            "number",
            "status",
            "filename",
            "size",
            "sha256",
            "created_at",
            "validated_at",
            "validation_match",
            "rejection_kind",
            "rejection_detail",
            "stderr_tail",
            "retired_at",
            "retirement_reason",
        ]

    def to_representation(self, version: BotVersion) -> dict[str, Any]:
        data: dict[str, Any] = super().to_representation(version)
        request = self.context.get("request")
        if request is None or not sees_private(request.user, version.bot):
            for key in self.PRIVATE:
                data[key] = None  # withheld, and said so: the key is always there
        return data


class UploadSerializer(serializers.Serializer[None]):
    """An upload (multipart): these fields and no others."""

    # A part of an unknown name is refused, not ignored: part names are headers, and odd
    # ones have cost the file part its place in Django's parser (a 400 that said "No file
    # was submitted"); a typo'd field is a mistake worth saying.

    file = serializers.FileField(help_text="the bot: one .py file")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            taken = ", ".join(self.fields)
            message = f"Unknown field: an upload takes {taken}."
            raise serializers.ValidationError({name[:40]: [message] for name in unknown})
        return attrs


class NamedUploadSerializer(UploadSerializer):
    bot = serializers.CharField(
        max_length=40,
        trim_whitespace=False,  # as sent: the pattern is what it is checked against
        validators=[bot_name_validator],
        help_text="your bot's name",
    )
    game = serializers.ChoiceField(
        choices=GAME_CHOICES, required=False, help_text="needed only to create a new bot"
    )


class UploadResultSerializer(serializers.Serializer[None]):
    bot = BotSerializer()
    version = VersionSerializer()


class LeaderboardQuery(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=GAME_CHOICES, default=GameName.FIVE_CUCUMBERS.value)


class LeaderboardEntrySerializer(serializers.Serializer[Bot]):
    rank = serializers.IntegerField(
        allow_null=True,
        min_value=1,
        help_text="place among the game's rated bots; null before the bot's first rated game",
    )
    tied_with_above = serializers.BooleanField(
        help_text="its Elo's 95% interval overlaps the one of the bot ranked just above: the"
        " ladder cannot tell them apart yet"
    )
    bot = BotSerializer(source="*")


class ParticipantSerializer(serializers.ModelSerializer[Participant]):
    bot = serializers.IntegerField(source="bot_id", allow_null=True)
    version = serializers.IntegerField(source="version.number", allow_null=True, default=None)
    rating_change = serializers.FloatField(allow_null=True)

    class Meta:
        model = Participant
        fields = [
            "index",
            "name",
            "bot",
            "version",
            "placement",
            "mean_place",
            "wins",
            "faults",
            "rating_before",
            "rating_after",
            "rating_change",
        ]


class MatchGameSerializer(serializers.ModelSerializer[MatchGame]):
    seed = serializers.SerializerMethodField()
    placement = serializers.SerializerMethodField()
    replay = serializers.SerializerMethodField()
    faults = serializers.SerializerMethodField()
    outputs = serializers.SerializerMethodField()

    class Meta:
        model = MatchGame
        fields = ["number", "seed", "placement", "faults", "outputs", "replay"]

    def _sight(self, game: MatchGame) -> Sight:
        # The view's context dict, shared by every game of the response (the stubs say Mapping).
        context = cast(dict[str, Any], self.context)
        cache: dict[int, Sight] = context.setdefault("sights", {})
        if game.match_id not in cache:
            participants = list(game.match.participants.select_related("bot"))
            cache[game.match_id] = sight(
                self.context["request"].user, participants, public=self._public(game)
            )
        return cache[game.match_id]

    def _public(self, game: MatchGame) -> bool:
        context = cast(dict[str, Any], self.context)
        cache: dict[int, bool] = context.setdefault("public", {})
        if game.match_id not in cache:
            cache[game.match_id] = game.match.results_public
        return cache[game.match_id]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, game: MatchGame) -> int | None:
        """The game's deal seed; null while its deal set is being played."""
        return game.seed if self._public(game) else None

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_placement(self, game: MatchGame) -> list[int]:
        """Participant indexes, best first; empty while its deal set is being played."""
        return list(game.placement) if self._public(game) else []

    @extend_schema_field(serializers.ListField(child=serializers.DictField()))
    def get_faults(self, game: MatchGame) -> list[dict[str, Any]]:
        """Faults by participant index, each with ``viewer``, the match page's address of
        its move in the replay viewer; a detail and a ``traceback`` (the bot's own frames)
        only for the bot's owner and staff. While its deal set is being played, the
        viewer's own bots' faults only."""
        request: Request = self.context["request"]
        page = request.build_absolute_uri(reverse("match-detail", args=[game.match_id]))
        seen = self._sight(game)
        shown = faults_seen(game, seen) if self._public(game) else own_faults_seen(game, seen)
        return [fault | {"viewer": f"{page}#{fault_moment(game.number, fault)}"} for fault in shown]

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_outputs(self, game: MatchGame) -> dict[str, str]:
        """What the viewer's own bots printed in this game, by participant index."""
        return {str(k): v for k, v in outputs_seen(game, self._sight(game)).items()}

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_replay(self, game: MatchGame) -> str | None:
        """The replay's address; null while its deal set's other rotations are played."""
        if not self._public(game):
            return None
        path = reverse("api-match-replay", args=[game.match_id, game.number])
        request: Request = self.context["request"]
        return request.build_absolute_uri(path)


class MatchSerializer(serializers.ModelSerializer[Match]):
    participants = ParticipantSerializer(many=True, read_only=True)
    games = MatchGameSerializer(many=True, read_only=True)
    seed = serializers.SerializerMethodField()
    replays_held = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "game",
            "kind",
            "status",
            "rated",
            "seed",
            "games_planned",
            "duplicate",
            "deal_set",
            "rotation",
            "replays_held",
            "sandbox",
            "worker",
            "created_at",
            "started_at",
            "finished_at",
            "failure_reason",
            "participants",
            "games",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, match: Match) -> int | None:
        """The seed its deals followed from (``cucumbers`` replays its games from it);
        null until its results are public (its whole deal set played): no deal is
        knowable before it is played."""
        return match.deal_seed if match.results_public else None

    @extend_schema_field(serializers.BooleanField())
    def get_replays_held(self, match: Match) -> bool:
        """Played, but its results, replays and seed are held until its deal set's other
        rotations are played."""
        return match.status == MatchStatus.HELD or (
            match.status == MatchStatus.FINISHED and not match.results_public
        )


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    name = JsonString(
        max_length=ApiToken._meta.get_field("name").max_length,
        help_text="what this token is for, e.g. a laptop",
    )

    class Meta:
        model = ApiToken
        fields = ["id", "name", "shown", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = ["shown", "created_at", "last_used_at", "revoked_at"]


class NewTokenSerializer(TokenSerializer):
    """A token as its creation answers it: with the token itself, shown this once."""

    token = serializers.CharField(read_only=True, help_text="the token itself, shown this once")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]


class ChallengeCreatedSerializer(serializers.Serializer[dict[str, object]]):
    id = serializers.IntegerField(help_text="the match's id")
    status = serializers.CharField(help_text="queued, at first")
    url = serializers.URLField(help_text="the match's page (an absolute URL)")


def bot_id(**kwargs: Any) -> JsonInteger:
    """A bot's id in a body: a positive 64-bit integer."""
    return JsonInteger(min_value=1, max_value=LARGEST_ID, **kwargs)


#: The most opponents one challenge may name: the largest table of any game, less yours.
MAX_OPPONENTS = max(rules_for(game).max_players for game in GAMES) - 1


class NewChallengeSerializer(serializers.Serializer[dict[str, object]]):
    """A challenge asked for (``NewChallengeRequest`` in the schema)."""

    bot = bot_id(help_text="your bot's id")
    opponents = serializers.ListField(
        child=bot_id(),
        min_length=1,
        max_length=MAX_OPPONENTS,
        help_text="the bots to play against; the game's table size bounds them",
    )
    games = JsonInteger(
        required=False, min_value=1, help_text="games to play (default: the ladder's number)"
    )

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        # The schema's bound (the setting of the moment); the challenge service refuses
        # beyond it with its own code (bad_games) and message, as the challenge form does.
        # Set after the field was made, the attribute adds no validator: the schema reads it.
        fields["games"].max_value = settings.CHALLENGE_MAX_GAMES  # type: ignore[attr-defined]
        return fields
