"""Pages of the arena: the challenge page (``POST /api/challenges/`` is the API's), the
public arena page and the staff status page. Thin: the work is in ``kinds/challenge.py`` and
``web/matches/status.py``."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.validators import MaxValueValidator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from web.bots.access import public_bot
from web.bots.models import Bot
from web.matches.models import KIND_CHOICES
from web.matches.status import arena_figures, pipeline_status
from web.users import signed_in

from .kinds.challenge import ChallengeError, create_challenge, default_games

#: Bots a search on the challenge page shows at most.
SEARCH_RESULTS = 30


class ChallengeForm(forms.Form):
    """Your bot, the bots it meets (any on the game's leaderboard; the page shows a search's
    results, not all of them) and the number of games."""

    bot = forms.ModelChoiceField(queryset=Bot.objects.none(), label="Your bot")
    opponents = forms.ModelMultipleChoiceField(queryset=Bot.objects.none(), required=False)
    games = forms.IntegerField(min_value=1, label="Games")

    def __init__(self, user: User, target: Bot, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        playing = Bot.objects.on_leaderboard(target.game).select_related("owner")
        mine = self.fields["bot"]
        assert isinstance(mine, forms.ModelChoiceField)
        mine.queryset = playing.filter(owner=user)
        others = self.fields["opponents"]
        assert isinstance(others, forms.ModelMultipleChoiceField)
        others.queryset = playing
        games = self.fields["games"]
        assert isinstance(games, forms.IntegerField)
        games.max_value = settings.CHALLENGE_MAX_GAMES
        games.validators.append(MaxValueValidator(settings.CHALLENGE_MAX_GAMES))
        games.initial = default_games()
        if target.owner_id == user.pk:
            mine.initial = target.pk


def challenge_candidates(target: Bot, query: str) -> list[Bot]:
    """The bots a search finds (by bot or owner name), best first; the page's own bot and,
    with no search, the top of the leaderboard."""
    found = Bot.objects.on_leaderboard(target.game).select_related("owner")
    if query:
        found = found.filter(Q(name__icontains=query) | Q(owner__username__icontains=query))
    return list(found[:SEARCH_RESULTS])


@login_required
def challenge(request: HttpRequest, bot_id: int) -> HttpResponse:
    """Challenge from any bot's page: with it (your own), or against it (with one of yours)."""
    target = public_bot(bot_id)
    user = signed_in(request)
    form = ChallengeForm(user, target, request.POST or None)
    query = request.GET.get("q", "").strip()[:40]
    status = 200
    if request.method == "POST" and form.is_valid():
        mine: Bot = form.cleaned_data["bot"]
        picked = [b.pk for b in form.cleaned_data["opponents"] if b.pk != mine.pk]
        if target.pk != mine.pk and target.pk not in picked:
            picked.insert(0, target.pk)  # against this page's bot
        try:
            match = create_challenge(user, mine.pk, picked, form.cleaned_data["games"])
        except ChallengeError as error:
            form.add_error(None, error.message)
            status = int(error.http_status)
        else:
            return redirect(match)
    elif request.method == "POST":
        status = 400
    chosen = {str(v) for v in form["opponents"].value() or []}
    context = {
        "target": target,
        "form": form,
        "query": query,
        "candidates": challenge_candidates(target, query),
        "chosen": chosen,
        "mine": target.owner_id == user.pk,
        "has_bots": form.fields["bot"].queryset.exists(),  # type: ignore[attr-defined]
    }
    return render(request, "matches/challenge.html", context, status=status)


def arena(request: HttpRequest) -> HttpResponse:
    """The public arena page: how busy it is and how long an upload waits."""
    figures = arena_figures()
    waits = [("verdict", figures.verdict), ("first rated game", figures.first_rated)]
    context = {"figures": figures, "kinds": KIND_CHOICES, "waits": waits}
    return render(request, "matches/arena.html", context)


@staff_member_required
def arena_status(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/status.html", {"status": pipeline_status()})
