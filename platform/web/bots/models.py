"""Bots and their versions.

A :class:`Bot` is a name on a leaderboard (one game); it plays with its *active version*.
Every upload is an immutable :class:`BotVersion` that is validated in the sandbox before it
may play: the previous active version keeps playing until a new one passes.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import BooleanField, ExpressionWrapper, F, Q
from django.db.models.functions import Lower
from django.utils import timezone

from arena import skill
from arena.rating import INITIAL_RATING
from cucumbers.faults import FaultKind
from cucumbers.games import game_choices
from web.elo import elo_settings
from web.links import bot_url

BOT_NAME_PATTERN = r"\A[A-Za-z0-9][A-Za-z0-9_-]{0,39}\Z"
bot_name_validator = RegexValidator(
    BOT_NAME_PATTERN,
    "Use 1 to 40 letters, digits, '-' or '_', starting with a letter or digit.",
)


#: The games the site offers: every game of the SDK's registry (``cucumbers.games``), as
#: ``(name, title)`` in its order; a game added to the SDK is a game of the site.
GAME_CHOICES: list[tuple[str, str]] = game_choices()
#: Their names.
GAMES: tuple[str, ...] = tuple(name for name, _ in GAME_CHOICES)


class VersionStatus(models.TextChoices):
    QUEUED = "queued", "queued for validation"
    VALIDATING = "validating", "validating"
    ACTIVE = "active", "active"
    REJECTED = "rejected", "rejected"
    RETIRED = "retired", "retired"


#: Statuses whose validation is not over yet (the "my bots" page refreshes while any is).
PENDING_STATUSES = (VersionStatus.QUEUED, VersionStatus.VALIDATING)


class RejectionKind(models.TextChoices):
    """Why a version was rejected: the fault it made in its validation match."""

    TIMEOUT = FaultKind.TIMEOUT.value, "timeout"
    ILLEGAL_MOVE = FaultKind.ILLEGAL_MOVE.value, "illegal move"
    CRASH = FaultKind.CRASH.value, "crash"
    PROTOCOL = FaultKind.PROTOCOL.value, "protocol"
    ERROR = FaultKind.ERROR.value, "error"


def bot_source_storage() -> Storage:
    """Bot sources live apart from media and are never served directly."""
    return storages["bot_sources"]


#: True for a bot with no rated game: listed after every rated bot (web/bots/ranking.py).
#: The leaderboard's index holds the same expression, so a page stays one range scan.
UNRATED = ExpressionWrapper(Q(games=0), output_field=BooleanField())
#: The leaderboard's order, for ``QuerySet.order_by``.
LEADERBOARD_ORDER = (UNRATED.asc(), F("rating").desc(), F("id").asc())


class BotQuerySet(models.QuerySet["Bot"]):
    def on_leaderboard(self, game: str) -> BotQuerySet:
        """Bots that play ranked games in ``game``: the rated ones best first, then those
        with no rated game yet (the partial index's order, :mod:`web.bots.ranking`)."""
        return self.filter(game=game, active=True, active_version__isnull=False).order_by(
            *LEADERBOARD_ORDER
        )


class Bot(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots"
    )
    name = models.CharField(max_length=40, validators=[bot_name_validator])
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    active = models.BooleanField(
        default=True, help_text="Inactive bots keep their versions but play no games."
    )
    active_version = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Rating and tallies are written by the ladder (web/pipeline/rating.py), in the
    # recording transaction of the match.
    rating = models.FloatField(default=INITIAL_RATING)
    # The companion rating (arena.skill): its sigma is the Elo's 95% interval.
    skill_mu = models.FloatField(default=skill.INITIAL_MU)
    skill_sigma = models.FloatField(default=skill.INITIAL_SIGMA)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    games_since_version = models.PositiveIntegerField(
        default=0, help_text="rated games of the active version: provisional while few"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = BotQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("name"), "owner", name="bot_name_unique_per_owner"),
        ]
        indexes = [
            # The leaderboard: one game, listed bots, by rating. Partial, so 10,000 bots with
            # many inactive ones stay one index range scan per page.
            models.Index(
                F("game"),
                UNRATED,
                F("rating").desc(),
                F("id"),
                name="bot_leaderboard",
                condition=models.Q(active=True, active_version__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner.username}/{self.name}"

    def get_absolute_url(self) -> str:
        return bot_url(self.pk)

    @property
    def is_provisional(self) -> bool:
        return self.games_since_version < settings.PROVISIONAL_GAMES

    @property
    def k_factor(self) -> float:
        """The K of its next rated game: how far that game can move its Elo."""
        return elo_settings().k_for(self.games_since_version)

    @property
    def rating_margin(self) -> float:
        """Half the Elo's 95% interval (arena.skill)."""
        return skill.half_width(self.skill_sigma)

    @property
    def rating_low(self) -> float:
        return self.rating - self.rating_margin

    @property
    def rating_high(self) -> float:
        return self.rating + self.rating_margin

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games if self.games else None

    @property
    def on_leaderboard(self) -> bool:
        return self.active and self.active_version_id is not None

    @property
    def standing(self) -> str:
        """Where the bot stands, in the same words on every page: "playing v3", "inactive",
        "validating v1", "v2 rejected" (its latest upload failed, none passed yet), "v2
        retired" (the ladder retired it for its faults, none plays), "no version yet"."""
        if not self.active:
            return "inactive"
        if self.active_version_id is not None:
            return f"playing v{self.active_version.number}"  # type: ignore[union-attr]
        # all(), not a query of its own: a list page prefetches every bot's versions, and
        # then this costs nothing per bot.
        latest = max(self.versions.all(), key=attrgetter("number"), default=None)
        if latest is None:
            return "no version yet"
        if latest.status == VersionStatus.REJECTED:
            return f"v{latest.number} rejected"
        if latest.status == VersionStatus.RETIRED:
            return f"v{latest.number} retired"  # for its faults: no version plays now
        return f"validating v{latest.number}"

    def rank(self) -> int | None:
        """1-based place among its game's rated bots (ties broken by age); None off the
        leaderboard or before its first rated game (:mod:`web.bots.ranking`)."""
        if not self.on_leaderboard or not self.games:
            return None
        ahead = Bot.objects.on_leaderboard(self.game).filter(
            models.Q(games__gt=0),
            models.Q(rating__gt=self.rating) | models.Q(rating=self.rating, id__lt=self.id),
        )
        return ahead.count() + 1


class ImmutableVersionError(Exception):
    """Something tried to change what a version *is* (its number, source or digest)."""


class BotVersion(models.Model):
    """One upload. Its number, source, digest and size never change; only its validation
    status does (see :data:`IMMUTABLE_FIELDS`)."""

    IMMUTABLE_FIELDS = frozenset({"bot", "number", "source", "filename", "sha256", "size"})

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    source = models.FileField(storage=bot_source_storage, max_length=255)
    filename = models.CharField(max_length=100, help_text="the uploaded file's name")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(
        max_length=12, choices=VersionStatus.choices, default=VersionStatus.QUEUED
    )
    validation_started_at = models.DateTimeField(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    validation_match = models.ForeignKey(
        "matches.Match", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    rejection_kind = models.CharField(max_length=20, choices=RejectionKind.choices, blank=True)
    rejection_detail = models.TextField(blank=True)
    stderr_tail = models.TextField(blank=True, help_text="the bot's own output: owner only")
    # Set only when the ladder retired the version for its faults (web/pipeline/retirement.py);
    # a version replaced by a newer one is retired without a reason.
    retired_at = models.DateTimeField(null=True, blank=True)
    retirement_reason = models.CharField(
        max_length=300, blank=True, help_text="why the ladder retired it (its faults): public"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="version_number_unique_per_bot"),
        ]
        indexes = [
            models.Index(fields=["status", "validation_started_at"], name="version_status"),
            models.Index(fields=["bot", "created_at"], name="version_bot_created"),
        ]
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"{self.bot} v{self.number}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            fields = kwargs.get("update_fields")
            if fields is None or self.IMMUTABLE_FIELDS & set(fields):
                raise ImmutableVersionError(
                    f"{self}: a version is immutable; save with update_fields= status fields"
                )
        super().save(*args, **kwargs)

    @property
    def retired_for_faults(self) -> bool:
        return bool(self.retirement_reason)

    @property
    def is_pending(self) -> bool:
        return self.status in PENDING_STATUSES

    def read_source(self) -> str:
        with self.source.open("rb") as handle:
            data: bytes = handle.read()
            return data.decode("utf-8")
