"""A move review of one participant's decisions in a finished match (the site's "Review"):
asked for by the bot's owner (or staff), computed by an arena worker from the match's
replays with the SDK's :func:`cucumbers.review.review_json`, recorded by the platform's
worker from the arena host's signed result (:mod:`web.reviews.recording`).

One review per participant of a match: a second ask returns it. Its status moves
``queued → done`` (or ``failed``) by conditional updates on its attempt, so a duplicate or
late result is never recorded twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from web.matches.models import Match


class ReviewStatus(models.TextChoices):
    #: Waiting for, or being computed by, an arena worker (there is no ``running``: no
    #: message says a worker began; a review takes seconds to minutes).
    QUEUED = "queued"
    DONE = "done"
    FAILED = "failed"


class Review(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="reviews")
    participant = models.PositiveSmallIntegerField(
        help_text="the reviewed bot's index in the match"
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviews",
        help_text="who last asked for it (counted in their REVIEWS_PER_DAY)",
    )
    status = models.CharField(
        max_length=10, choices=ReviewStatus.choices, default=ReviewStatus.QUEUED
    )
    seed = models.BigIntegerField(default=0, help_text="the review's seed (its deals)")
    deals = models.PositiveIntegerField(help_text="deals per decision")
    created_at = models.DateTimeField(default=timezone.now)
    # When it was last asked for: the quota counts these (a failed review asked again
    # counts again).
    requested_at = models.DateTimeField(default=timezone.now)
    # The attempt it was last sent under, and when: only that attempt's result is recorded.
    attempt = models.UUIDField(null=True, blank=True, editable=False)
    sent_at = models.DateTimeField(null=True, blank=True)
    # What it was sent: [[game number, the participant's seat in it], ...].
    plan = models.JSONField(default=list, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # {"games": [{"number", "seat", "review": <cucumbers-review/1>}, ...]} once done.
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    arena_host = models.CharField(max_length=100, blank=True)
    worker = models.CharField(max_length=100, blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="the worker's time")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["match", "participant"], name="review_once_per_participant"
            ),
        ]
        indexes = [models.Index(fields=["requested_by", "requested_at"], name="review_quota")]

    def __str__(self) -> str:
        return f"review of participant {self.participant} in match {self.match_id}"
