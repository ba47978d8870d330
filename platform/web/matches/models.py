"""Matches, their participants and their games.

A match moves ``queued → running → finished`` (or ``failed``); a worker takes one with
:meth:`Match.claim`, a conditional UPDATE, so two workers can never both run it.
"""

from __future__ import annotations

from django.core.files.storage import Storage, storages
from django.db import models
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from web.bots.models import Bot, BotVersion, Game


class MatchStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"


class MatchKind(models.TextChoices):
    VALIDATION = "validation", "validation"
    LADDER = "ladder", "ladder"
    CHALLENGE = "challenge", "challenge"


def replay_storage() -> Storage:
    return storages["replays"]


class Match(models.Model):
    game = models.CharField(max_length=20, choices=Game.choices)
    kind = models.CharField(max_length=12, choices=MatchKind.choices)
    status = models.CharField(
        max_length=10, choices=MatchStatus.choices, default=MatchStatus.QUEUED
    )
    rated = models.BooleanField(default=False)
    seed = models.BigIntegerField()
    games_planned = models.PositiveSmallIntegerField()
    sandbox = models.CharField(max_length=20, blank=True, help_text="the runner that played it")
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    failure_reason = models.TextField(blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "created_at"], name="match_queue"),
            models.Index(fields=["game", "-finished_at"], name="match_recent"),
        ]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"match {self.pk} ({self.kind}, {self.game})"

    def get_absolute_url(self) -> str:
        return reverse("match-detail", args=[self.pk])

    @classmethod
    def claim(cls, match_id: int) -> bool:
        """Move a queued match to running; True only for the one caller that did."""
        return (
            cls.objects.filter(pk=match_id, status=MatchStatus.QUEUED).update(
                status=MatchStatus.RUNNING, started_at=timezone.now(), attempts=F("attempts") + 1
            )
            == 1
        )

    @classmethod
    def requeue(cls, match_ids: list[int]) -> int:
        """Queue failed matches again; returns how many were."""
        return cls.objects.filter(pk__in=match_ids, status=MatchStatus.FAILED).update(
            status=MatchStatus.QUEUED, failure_reason="", started_at=None, finished_at=None
        )


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

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match", "number"], name="game_number_unique_per_match"
            ),
        ]
        ordering = ["number"]

    def __str__(self) -> str:
        return f"{self.match} game {self.number}"
