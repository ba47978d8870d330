"""What a user is told by e-mail, and what they turned off.

Every kind is on until its user turns it off, on the account page or with the unsubscribe
link of any such mail (``views.py``): one :class:`OptOut` row per kind turned off.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class NoticeKind(models.TextChoices):
    """The mails a bot's owner gets; the labels are what the account page offers."""

    REJECTED = "rejected", "a version of mine is rejected by its validation"
    FIRST_RATING = "first_rating", "a new version of mine gets its first rating"
    RETIRED = "retired", "a version of mine is retired for its faults"
    TOURNAMENT = "tournament", "a tournament my bot entered ends"


class OptOut(models.Model):
    """``user`` gets no mail of ``kind``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_opt_outs"
    )
    kind = models.CharField(max_length=20, choices=NoticeKind.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="opt_out_once_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: no {self.kind}"


def wants(user_id: int, kind: str) -> bool:
    """Whether the user still gets mail of ``kind``."""
    return not OptOut.objects.filter(user_id=user_id, kind=kind).exists()


def set_choices(user_id: int, wanted: set[str]) -> None:
    """Keep exactly the kinds in ``wanted`` on for the user."""
    OptOut.objects.filter(user_id=user_id, kind__in=wanted).delete()
    for kind in set(NoticeKind.values) - wanted:
        OptOut.objects.get_or_create(user_id=user_id, kind=kind)


def opt_out(user_id: int, kind: str) -> None:
    OptOut.objects.get_or_create(user_id=user_id, kind=kind)
