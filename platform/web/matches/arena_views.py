"""Pages and API endpoint of the ladder: the challenge form, the staff status page, and
``POST /api/challenges/``. Thin: the work is in ``challenges.py`` and ``status.py``."""

from __future__ import annotations

from django import forms
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from web.api.errors import Refused
from web.bots.access import owned_bot
from web.bots.models import Bot
from web.pipeline.status import pipeline_status

from .challenges import ChallengeError, create_challenge


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
                request.user, bot.pk, [b.pk for b in form.cleaned_data["opponents"]]
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


@staff_member_required
def arena_status(request: HttpRequest) -> HttpResponse:
    return render(request, "matches/status.html", {"status": pipeline_status()})


class ChallengeRequest(serializers.Serializer[dict[str, object]]):
    bot = serializers.IntegerField(help_text="your bot's id")
    opponents = serializers.ListField(child=serializers.IntegerField(), min_length=1)


class ChallengeView(APIView):
    """Ask for an unrated match between your bot and the bots you pick (quota per hour)."""

    permission_classes = [IsAuthenticated]
    serializer_class = ChallengeRequest

    def post(self, request: Request) -> Response:
        data = ChallengeRequest(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            match = create_challenge(
                request.user, data.validated_data["bot"], data.validated_data["opponents"]
            )
        except ChallengeError as error:
            raise Refused(error) from None
        return Response(
            {"id": match.pk, "status": match.status, "url": match.get_absolute_url()},
            status=status.HTTP_201_CREATED,
        )
