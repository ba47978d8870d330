"""Who sees a review: the reviewed bot's owner and staff (as its output and tracebacks,
:mod:`web.matches.privacy`), in a match they may see; anyone else gets a 404, whether or
not the review exists."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import Http404
from django.shortcuts import get_object_or_404

from web.matches.access import visible_matches
from web.matches.models import Match
from web.matches.privacy import sight

from .models import Review


def visible_match(user: AbstractBaseUser | AnonymousUser, match_id: int) -> Match:
    """The match, if ``user`` may see it; else a 404."""
    return get_object_or_404(visible_matches(user), pk=match_id)  # type: ignore[arg-type]


def visible_review(
    user: AbstractBaseUser | AnonymousUser, match_id: int, participant: int
) -> Review:
    """The review of ``participant`` in the match, if ``user`` may read it; else a 404."""
    match = visible_match(user, match_id)
    participants = list(match.participants.select_related("bot"))
    if not sight(user, participants).sees(participant):
        raise Http404("no such review")
    return get_object_or_404(
        Review.objects.select_related("match"), match=match, participant=participant
    )
