"""Matches, their participants and their games.

A match moves ``queued → running → finished`` (or ``failed``), only ever through
:mod:`web.pipeline.transitions`; a rotation of a deal set is ``held`` between its report and
its set's last rotation (then the whole set is ``finished`` at once, or ``failed`` at once
when it is void). Each send of a queued match to the arena is an *attempt* with an id of its
own: only the report of the current attempt is ever recorded.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.storage import Storage, storages
from django.db import models
from django.db.models import Q
from django.utils import timezone

from arena.contract import MatchKind
from web.bots.models import GAME_CHOICES, Bot, BotVersion
from web.links import match_url


class MatchStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    # A rotation of a deal set, played and recorded, whose set is still being played: its
    # results, replays and seed are held (shown to nobody) until the set is whole.
    HELD = "held", "Played, results held"
    FINISHED = "finished"
    FAILED = "failed"


#: Why a match is played, as the arena's contract declares it (the one declaration).
KIND_CHOICES = [(kind.value, kind.value) for kind in MatchKind]


def replay_storage() -> Storage:
    return storages["replays"]


class Match(models.Model):
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    kind = models.CharField(max_length=12, choices=KIND_CHOICES)
    # Written by web.pipeline.transitions alone (a test holds every other module to it).
    status = models.CharField(
        max_length=10, choices=MatchStatus.choices, default=MatchStatus.QUEUED
    )
    rated = models.BooleanField(default=False)
    # Secret: the deals follow from this seed keyed with the platform's DEAL_KEY
    # (web.matches.deals), and it is shown nowhere. A new one is drawn whenever the match
    # may have been seen before it was played (a re-seat, a requeue, a retry).
    seed = models.BigIntegerField()
    # The seed its deals followed from, published once its results are (the whole deal set
    # played, or void): what `cucumbers` reproduces the games from. Empty until then.
    deal_seed = models.BigIntegerField(null=True, blank=True, editable=False)
    games_planned = models.PositiveSmallIntegerField()
    duplicate = models.BooleanField(
        default=False,
        help_text="each deal once per seat rotation (the SDK's game_plan): luck cancels out",
    )
    # Duplicate deals are played as a *deal set*: one match per seat rotation, each with
    # fresh bot processes, so that no bot ever sees a deal twice (a bot that remembered a
    # deal would know its opponents' hands when it came back). The matches of a set share
    # ``deal_set``, their seed and their seats; ``rotation`` is this one's seat turn.
    # Matches recorded before sets existed have neither: all rotations in one match.
    deal_set = models.UUIDField(null=True, blank=True, editable=False)
    rotation = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="the seat rotation of the deal set this match plays"
    )
    # A new version's first rated matches wait on a queue of their own, ahead of the
    # routine ladder (arena.broker.DEBUT_QUEUE): its author is waiting for a first rating.
    debut = models.BooleanField(
        default=False,
        help_text="a new version's first rated matches: sent ahead of the routine ladder",
    )
    sandbox = models.CharField(max_length=20, blank=True, help_text="the runner that played it")
    worker = models.CharField(max_length=100, blank=True, help_text="the worker that played it")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    # The attempt the match was last sent under: only its report may be recorded (a worker
    # that was presumed dead, a duplicate or a late message is discarded).
    attempt = models.UUIDField(null=True, blank=True, editable=False)
    # The arena host bound to the current attempt: the signer of its first ``started``
    # message (or of its report, should that come first). A report signed by another host
    # is refused. Empty for a new attempt, and for matches played in-process.
    arena_host = models.CharField(
        max_length=100, blank=True, help_text="the arena host that signed for the attempt"
    )
    failure_reason = models.TextField(blank=True)
    # When the current attempt's job reached the broker; empty while it is to be sent (the
    # broker refused it, or a retry waits for ``retry_at``): the reaper sends such matches.
    sent_at = models.DateTimeField(null=True, blank=True)
    # After an infrastructure error: not sent again before this.
    retry_at = models.DateTimeField(null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="challenges",
        help_text="who asked for this challenge",
    )

    class Meta:
        indexes = [
            models.Index(fields=["status", "created_at"], name="match_queue"),
            models.Index(
                fields=["deal_set"], name="match_deal_set", condition=Q(deal_set__isnull=False)
            ),
            models.Index(fields=["game", "-finished_at"], name="match_recent"),
            # The match list, newest first: its page is a short walk down this index
            # instead of a sort of every finished match (benchmarks/web.py).
            models.Index(
                fields=["-finished_at", "-id"],
                name="match_finished_list",
                condition=Q(status=MatchStatus.FINISHED),
            ),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} ({self.kind}, {self.game})"

    def get_absolute_url(self) -> str:
        return match_url(self.pk)

    @property
    def results_public(self) -> bool:
        """Whether its results, replays and seed may be shown (to each viewer as
        ``privacy.py`` says): once it is finished, or failed (a void deal set's rotations
        included: their seed is never played again). A held rotation's are nobody's
        (its owner's own output and tracebacks excepted)."""
        if self.status not in (MatchStatus.FINISHED, MatchStatus.FAILED):
            return False
        # A set's rotations are finished or void together; one recorded before sets were
        # rated whole may still have rotations to play: it waits for them.
        return self.deal_set is None or not (
            Match.objects.filter(
                deal_set=self.deal_set,
                status__in=(MatchStatus.QUEUED, MatchStatus.RUNNING, MatchStatus.HELD),
            ).exists()
        )

    def rotations_to_play(self) -> list[int]:
        """The other rotations of its deal set still to be played (queued or running): a
        held rotation's results wait for them."""
        if self.deal_set is None:
            return []
        pending = (
            Match.objects.filter(
                deal_set=self.deal_set, status__in=(MatchStatus.QUEUED, MatchStatus.RUNNING)
            )
            .exclude(pk=self.pk)
            .order_by("pk")
        )
        return list(pending.values_list("pk", flat=True))


class Participant(models.Model):
    """One bot of a match. ``bot``/``version`` are empty for a built-in opponent."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="participants")
    index = models.PositiveSmallIntegerField(help_text="the bot's index in the match")
    bot = models.ForeignKey(
        Bot, null=True, blank=True, on_delete=models.SET_NULL, related_name="participations"
    )
    version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name = models.CharField(max_length=100)
    placement = models.PositiveSmallIntegerField(null=True, blank=True)
    mean_place = models.FloatField(null=True, blank=True)
    wins = models.PositiveSmallIntegerField(default=0)
    faults = models.PositiveSmallIntegerField(default=0)
    rating_before = models.FloatField(null=True, blank=True)
    rating_after = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="participant_index_unique"),
        ]
        indexes = [models.Index(fields=["bot", "-match"], name="participant_bot_recent")]
        ordering = ["placement", "index"]

    def __str__(self) -> str:
        return self.name

    @property
    def rating_change(self) -> float | None:
        if self.rating_before is None or self.rating_after is None:
            return None
        return self.rating_after - self.rating_before


class MatchGame(models.Model):
    """One game of a match: its result and its replay (gzip-compressed JSON in storage)."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    placement = models.JSONField(help_text="participant indexes, best first")
    faults = models.JSONField(default=list, help_text="faults with participant indexes")
    replay = models.FileField(storage=replay_storage, max_length=255)
    replay_size = models.PositiveIntegerField(default=0)
    # Each participant's output tail in this game (gzip-compressed JSON, participant index ->
    # text), beside the replay; shown to the bot's owner and staff only (matches/privacy.py).
    outputs = models.FileField(storage=replay_storage, max_length=255, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match", "number"], name="game_number_unique_per_match"
            ),
        ]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"{self.match} game {self.number}"


class AppendOnlyError(Exception):
    """Something tried to change a history row."""


class RatingChange(models.Model):
    """One bot's rating change in one rated game: append-only history (rating charts)."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="rating_changes")
    version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    game = models.PositiveSmallIntegerField(help_text="the game's number in its match")
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # A second guard against recording a match twice, below the status check.
            models.UniqueConstraint(
                fields=["match", "game", "bot"], name="rating_change_once_per_game"
            ),
        ]
        indexes = [models.Index(fields=["bot", "created_at"], name="rating_history")]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.bot_id}: {self.before:.1f} -> {self.after:.1f} ({self.match_id}/{self.game})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError("rating history is append-only")
        super().save(*args, **kwargs)
