"""The lists' filters. Each refuses junk with a 400 that names the parameter (an unknown
choice, ``bot=x``, ``active=maybe``), and its schema carries the bounds it enforces."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from web.bots.models import GAME_CHOICES, Bot
from web.matches.models import KIND_CHOICES, Match, MatchStatus

from .bounds import LARGEST_ID, USERNAME_LENGTH


class StrictBooleanField(forms.Field):
    """``true``/``false`` (or ``1``/``0``); anything else is invalid, where Django's
    ``NullBooleanField`` would read it as "no filter"."""

    widget = forms.TextInput
    VALUES = {"true": True, "1": True, "false": False, "0": False}

    def to_python(self, value: Any) -> bool | None:
        if value in (None, ""):
            return None
        if isinstance(value, bool):
            return value
        try:
            return self.VALUES[str(value).lower()]
        except KeyError:
            raise forms.ValidationError(
                "true or false is expected, not %(value)r.", params={"value": str(value)[:40]}
            ) from None


@extend_schema_field(OpenApiTypes.BOOL)
class StrictBooleanFilter(django_filters.Filter):
    field_class = StrictBooleanField


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": LARGEST_ID})
class IdFilter(django_filters.Filter):
    """A positive 64-bit id: a whole number (``1.5`` is refused, not rounded)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, min_value=1, max_value=LARGEST_ID, **kwargs)


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": USERNAME_LENGTH})
class UsernameFilter(django_filters.CharFilter):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, max_length=USERNAME_LENGTH, **kwargs)


class StrictFilterSet(django_filters.FilterSet):
    """A parameter given empty (``?game=``) is refused, where django-filter reads it as "no
    filter": leave the parameter out for that."""

    def is_valid(self) -> bool:
        form = self.form
        form.errors  # noqa: B018  (validates the form first: add_error needs cleaned_data)
        given = self.data or {}
        for name in self.filters:
            if given.get(name) == "":
                form.add_error(name, "A value is expected (leave the parameter out for all).")
        return super().is_valid()


class BotFilter(StrictFilterSet):
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    owner = UsernameFilter(field_name="owner__username", help_text="a username")
    active = StrictBooleanFilter()

    class Meta:
        model = Bot
        fields = ["game", "owner", "active"]


class MatchFilter(StrictFilterSet):
    game = django_filters.ChoiceFilter(choices=GAME_CHOICES)
    kind = django_filters.ChoiceFilter(choices=KIND_CHOICES)
    status = django_filters.ChoiceFilter(choices=MatchStatus.choices)
    bot = IdFilter(
        field_name="participants__bot", help_text="matches this bot played", distinct=True
    )
    owner = UsernameFilter(
        field_name="participants__bot__owner__username",
        help_text="matches a bot of this user played",
        distinct=True,
    )

    class Meta:
        model = Match
        fields = ["game", "kind", "status", "bot", "owner"]
