"""Tournaments: events staff create, owners enter (one bot each), and the arena plays on a
queue of its own.

A tournament moves ``open → running → finished`` (or ``cancelled`` when too few entries are
left at the start). Entries are taken until ``entry_deadline``; at ``starts_at`` each entry's
active version is frozen (:attr:`Entry.version`) and the whole schedule is queued
(:mod:`arena.schedule`, a round robin over tables): each table plays ``deals_per_table``
deal seeds once per seat rotation, one match per rotation (fresh bot processes: no bot
sees a deal twice).
"""

from __future__ import annotations

import random

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse
from django.utils import timezone

from cucumbers.games import rules_for
from cucumbers.match import SEED_BITS
from web.bots.models import GAME_CHOICES, Bot, BotVersion
from web.matches.models import Match


def new_seed() -> int:
    """A tournament's seed, as wide as a match's (``SEED_BITS``)."""
    return random.SystemRandom().getrandbits(SEED_BITS)


class TournamentStatus(models.TextChoices):
    OPEN = "open", "open for entries"
    RUNNING = "running", "running"
    FINISHED = "finished", "finished"
    CANCELLED = "cancelled", "cancelled"


class TournamentFormat(models.TextChoices):
    # arena/schedule.py says why this format and not Swiss rounds.
    ROUND_ROBIN = "round-robin", "round robin over tables"


class RecurringTournament(models.Model):
    """A house event that comes back: every ``every_days`` from ``first_start``, beat opens
    the next occurrence's entries ``opens_days_before`` its start (entering the house bots),
    starts it and ends it like any tournament (:mod:`web.tournaments.recurring`)."""

    name = models.CharField(max_length=60, help_text="each occurrence adds its date to it")
    description = models.TextField(blank=True, max_length=2000)
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    active = models.BooleanField(
        default=True, help_text="inactive: no new occurrence (one already open still runs)"
    )
    first_start = models.DateTimeField(help_text="the first occurrence's start; then every period")
    every_days = models.PositiveSmallIntegerField(default=7, help_text="days between two starts")
    opens_days_before = models.PositiveSmallIntegerField(
        default=6, help_text="entries open this many days before each start"
    )
    entries_close_minutes_before = models.PositiveSmallIntegerField(
        default=0, help_text="entries close this many minutes before the start"
    )
    table_size_min = models.PositiveSmallIntegerField(default=4)
    table_size_max = models.PositiveSmallIntegerField(default=4)
    rounds = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="empty: enough for every entrant to meet every other"
    )
    # As long as a ladder match (MATCH_GAMES, docs/arena.md "How long a ladder match is"):
    # each table's matches start their containers once for that many games.
    deals_per_table = models.PositiveSmallIntegerField(default=20)
    rated = models.BooleanField(default=False)
    enter_house_bots = models.BooleanField(
        default=True,
        help_text="enter the game's house bots in each occurrence: it happens even with no"
        " other entrant, and every entrant meets the reference strategies",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "name"]
        verbose_name = "recurring tournament"

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        problems: dict[str, str] = {}
        if not 1 <= self.every_days <= 366:
            problems["every_days"] = "1 to 366 days."
        if self.opens_days_before is not None and self.opens_days_before > self.every_days:
            problems["opens_days_before"] = "Entries open at most one period before the start."
        if problems:
            raise ValidationError(problems)


class Tournament(models.Model):
    name = models.CharField(max_length=80)
    description = models.TextField(blank=True, max_length=2000)
    game = models.CharField(max_length=20, choices=GAME_CHOICES)
    format = models.CharField(
        max_length=20, choices=TournamentFormat.choices, default=TournamentFormat.ROUND_ROBIN
    )
    table_size_min = models.PositiveSmallIntegerField(
        default=4, help_text="the smallest table; tables are as even as the sizes permit"
    )
    table_size_max = models.PositiveSmallIntegerField(default=4, help_text="the largest table")
    rounds = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="empty: enough for every entrant to be able to meet every other once",
    )
    deals_per_table = models.PositiveSmallIntegerField(
        default=20, help_text="deal seeds per table, each played once per seat rotation"
    )
    rated = models.BooleanField(
        default=False, help_text="whether its games also move the ladder's ratings"
    )
    entry_deadline = models.DateTimeField()
    starts_at = models.DateTimeField()
    status = models.CharField(
        max_length=10, choices=TournamentStatus.choices, default=TournamentStatus.OPEN
    )
    seed = models.BigIntegerField(help_text="decides the schedule's seats and the deals")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.CharField(max_length=200, blank=True)
    series = models.ForeignKey(
        RecurringTournament,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="occurrences",
        help_text="the recurring event this is an occurrence of",
    )

    class Meta:
        ordering = ["-starts_at", "-id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournament_due")]
        constraints = [
            # Two beats at once cannot open the same occurrence twice.
            models.UniqueConstraint(fields=["series", "starts_at"], name="occurrence_once"),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("tournament-detail", args=[self.pk])

    def clean(self) -> None:
        rules = rules_for(self.game) if self.game else None
        problems: dict[str, str] = {}
        if rules is not None and not (
            rules.min_players <= self.table_size_min <= self.table_size_max <= rules.max_players
        ):
            problems["table_size_max"] = (
                f"{rules.title} is played by {rules.min_players} to {rules.max_players}; the"
                " smallest table no larger than the largest."
            )
        if self.entry_deadline and self.starts_at and self.entry_deadline > self.starts_at:
            problems["entry_deadline"] = "Entries close at the start or before it."
        if self.deals_per_table is not None and not 1 <= self.deals_per_table <= 50:
            problems["deals_per_table"] = "1 to 50 deals per table."
        if self.rounds is not None and not 1 <= self.rounds <= 100:
            problems["rounds"] = "1 to 100 rounds."
        if problems:
            raise ValidationError(problems)

    @property
    def accepts_entries(self) -> bool:
        return self.status == TournamentStatus.OPEN and timezone.now() < self.entry_deadline


class Entry(models.Model):
    """One bot in one tournament. ``version`` is empty until the start, then the version
    that plays every match of the event, whatever its owner uploads meanwhile."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(
        Bot, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    version = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name = models.CharField(max_length=100, help_text="owner/bot when entered")
    entered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot"], name="entry_bot_once"),
        ]
        ordering = ["entered_at", "id"]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return self.name


class TournamentMatch(models.Model):
    """Where a match sits in its tournament's schedule."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    match = models.OneToOneField(Match, on_delete=models.CASCADE, related_name="tournament_table")
    round = models.PositiveSmallIntegerField()
    table = models.PositiveSmallIntegerField()
    # The table's deals are a deal set: one match per seat rotation (its match's rotation).
    rotation = models.PositiveSmallIntegerField(default=0)
    # The entries at the table, in the match's participant order (participant index -> entry).
    entries = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "round", "table", "rotation"],
                name="tournament_table_rotation_once",
            ),
        ]
        ordering = ["round", "table", "rotation"]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.round} table {self.table} rotation {self.rotation}"
