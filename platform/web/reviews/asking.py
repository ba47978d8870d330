"""Asking for a move review: one service for the match page's button and the API. Only a
bot's owner (or staff) asks for a review of that bot's decisions, in a finished match whose
replays are shown, at most ``REVIEWS_PER_DAY`` a day; each refusal has a code and an HTTP
status (:mod:`web.refusals`). A second ask of the same participant's review returns it; a
failed one, or one still queued ``REVIEW_RESEND_SECONDS`` after it was asked for (lost with
its message, or never taken by the broker), is sent again (and counted again)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from web.matches.models import Match, MatchStatus
from web.refusals import Problem, Refusal

from .models import Review, ReviewStatus
from .sending import send_review_on_commit


class ReviewError(Refusal):
    """A review refused before anything was queued; ``message`` is for the user."""


def reviews_last_day(user: User) -> int:
    since = timezone.now() - timedelta(days=1)
    return Review.objects.filter(requested_by=user, requested_at__gte=since).count()


def may_review(user: User, match: Match, participant: int) -> None:
    """Raises :class:`ReviewError` unless ``user`` may ask for a review of ``participant``
    in ``match`` (a match the user may see: the caller's access check)."""
    entry = match.participants.select_related("bot").filter(index=participant).first()
    if entry is None:
        raise ReviewError(
            Problem.UNKNOWN_PARTICIPANT, f"Match {match.pk} has no participant {participant}."
        )
    owner = entry.bot.owner_id if entry.bot is not None else None
    if owner != user.pk and not user.is_staff:
        raise ReviewError(
            Problem.FOREIGN_BOT, "You can ask for reviews of your own bots' decisions only."
        )
    if match.status == MatchStatus.HELD or (
        match.status == MatchStatus.FINISHED and not match.results_public
    ):
        raise ReviewError(
            Problem.NOT_REVIEWABLE,
            "Its replays are held until every rotation of its deals is played.",
        )
    if match.status != MatchStatus.FINISHED:
        raise ReviewError(Problem.NOT_REVIEWABLE, "The match is not finished yet.")
    if not match.games.exclude(replay="").exists():
        raise ReviewError(Problem.NOT_REVIEWABLE, "The match has no replay to review.")


def _lost(review: Review) -> bool:
    """Still queued so long after it was asked for that its message (or the broker's
    answer, or its worker) was lost: asked for again, it is sent again."""
    waited = timezone.now() - review.requested_at
    return waited > timedelta(seconds=settings.REVIEW_RESEND_SECONDS)


def ask_review(user: User, match: Match, participant: int) -> tuple[Review, bool]:
    """The review of ``participant`` in ``match``, queued (and sent once the transaction
    commits) if it is new, failed or lost; ``(review, sent)``."""
    may_review(user, match, participant)
    with transaction.atomic():
        # Lock the user's row: two asks at once cannot both slip under the quota.
        get_user_model().objects.select_for_update().get(pk=user.pk)
        review = (
            Review.objects.select_for_update().filter(match=match, participant=participant).first()
        )
        again = review is not None and (
            review.status == ReviewStatus.FAILED
            or (review.status == ReviewStatus.QUEUED and _lost(review))
        )
        if review is not None and not again:
            return review, False
        quota = settings.REVIEWS_PER_DAY
        if reviews_last_day(user) >= quota:
            raise ReviewError(
                Problem.TOO_MANY_REVIEWS,
                f"You can ask for {quota} reviews a day; try again later.",
            )
        now = timezone.now()
        if review is None:
            review = Review.objects.create(
                match=match,
                participant=participant,
                requested_by=user,
                deals=settings.REVIEW_DEALS,
                requested_at=now,
            )
        else:
            review.status = ReviewStatus.QUEUED
            review.requested_by = user
            review.requested_at = now
            review.deals = settings.REVIEW_DEALS
            review.attempt = review.sent_at = review.finished_at = None
            review.result, review.error = None, ""
            review.save()
        send_review_on_commit(review.pk)
        return review, True
