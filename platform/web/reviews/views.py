"""The review pages: ask for one (the match page's button, a POST with its CSRF token) and
read it (its status while queued, then the summary and the biggest mistakes first)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from web.matches.models import Match
from web.users import signed_in

from .access import visible_match, visible_review
from .asking import ReviewError, ask_review
from .models import ReviewStatus
from .presenting import SHOWN_DECISIONS, summary

#: The section of docs/bots.md on the review's method and its limits.
METHOD_ANCHOR = "reviewing-a-game-cucumbers-review"


def method_url() -> str:
    return f"{reverse('doc', args=['bots'])}#{METHOD_ANCHOR}"


@login_required
@require_POST
def review_ask(request: HttpRequest, match_id: int) -> HttpResponse:
    match: Match = visible_match(request.user, match_id)
    raw = request.POST.get("participant", "")
    participant = int(raw) if raw.isdigit() and len(raw) < 5 else -1
    try:
        ask_review(signed_in(request), match, participant)
    except ReviewError as error:
        context = {"match": match, "message": error.message}
        return render(request, "reviews/refused.html", context, status=error.http_status)
    return redirect("review-detail", match_id=match.pk, participant=participant)


def review_detail(request: HttpRequest, match_id: int, participant: int) -> HttpResponse:
    review = visible_review(request.user, match_id, participant)
    name = (
        review.match.participants.filter(index=participant).values_list("name", flat=True).first()
    )
    context = {
        "review": review,
        "match": review.match,
        "name": name or f"participant {participant}",
        "summary": summary(review),
        "queued": review.status == ReviewStatus.QUEUED,
        "method_url": method_url(),
        "shown": SHOWN_DECISIONS,
    }
    return render(request, "reviews/review.html", context)
