"""Who sees which match. Ladder and challenge matches are public; a validation match is
feedback for the validated bot's owner (its faults carry the bot's own error messages), so
only that owner and staff see it, as with a version's rejection details."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Exists, OuterRef, Q, QuerySet

from arena.contract import MatchKind

from .models import Match, Participant


def visible_matches(user: User | AnonymousUser) -> QuerySet[Match]:
    matches = Match.objects.all()
    if user.is_authenticated and getattr(user, "is_staff", False):
        return matches
    public = ~Q(kind=MatchKind.VALIDATION)
    if not user.is_authenticated:
        return matches.filter(public)
    mine = Exists(Participant.objects.filter(match=OuterRef("pk"), bot__owner=user))
    return matches.filter(public | mine)
