from __future__ import annotations

import django_filters

from web.bots.models import Bot, Game
from web.matches.models import Match, MatchKind, MatchStatus

#: Ids are positive 64-bit integers: anything else is a 400, never a database error.
LARGEST_ID = 2**63 - 1


class BotFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    owner = django_filters.CharFilter(field_name="owner__username", help_text="a username")
    active = django_filters.BooleanFilter()

    class Meta:
        model = Bot
        fields = ["game", "owner", "active"]


class MatchFilter(django_filters.FilterSet):
    game = django_filters.ChoiceFilter(choices=Game.choices)
    kind = django_filters.ChoiceFilter(choices=MatchKind.choices)
    status = django_filters.ChoiceFilter(choices=MatchStatus.choices)
    bot = django_filters.NumberFilter(
        field_name="participants__bot",
        help_text="matches this bot played",
        distinct=True,
        min_value=1,
        max_value=LARGEST_ID,
    )
    owner = django_filters.CharFilter(
        field_name="participants__bot__owner__username",
        help_text="matches a bot of this user played",
        distinct=True,
    )

    class Meta:
        model = Match
        fields = ["game", "kind", "status", "bot", "owner"]
