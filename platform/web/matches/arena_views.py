"""Pages of the arena: the challenge form and the staff status page (``POST
/api/challenges/`` is the API's). Thin: the work is in ``challenges.py`` and
``web/pipeline/status.py``."""

from __future__ import annotations

from django import forms
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from web.bots.access import owned_bot
from web.bots.models import Bot
from web.pipeline.status import arena_figures, pipeline_status
from web.users import signed_in

from .challenges import ChallengeError, create_challenge
from .models import MatchKind


class ChallengeForm(forms.Form):
    opponents = forms.ModelMultipleChoiceField(
        queryset=Bot.objects.none(), widget=forms.SelectMultiple(attrs={"size": 12})
    )

    def __init__(self, bot: Bot, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["opponents"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = (
            Bot.objects.on_leaderboard(bot.game).exclude(pk=bot.pk).select_related("owner")
        )


@login_required
def challenge(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = owned_bot(request.user, bot_id)
    form = ChallengeForm(bot, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            match = create_challenge(
                signed_in(request), bot.pk, [b.pk for b in form.cleaned_data["opponents"]]
            )
        except ChallengeError as error:
            form.add_error(None, error.message)
            return render(
                request,
                "matches/challenge.html",
                {"bot": bot, "form": form},
                status=int(error.http_status),
            )
        return redirect(match)
    return render(request, "matches/challenge.html", {"bot": bot, "form": form})


def arena(request: HttpRequest) -> HttpResponse:
    """The public arena page: how busy it is and how long an upload waits."""
    return render(request, "matches/arena.html", {"figures": arena_figures(), "kinds": MatchKind})


@staff_member_required
def arena_status(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/status.html", {"status": pipeline_status()})
