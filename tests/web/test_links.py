"""The row links the long lists format (web/links.py) are the URLs reverse() gives."""

from __future__ import annotations

import pytest
from django.urls import reverse

from web.links import bot_url, match_url, profile_url
from web.rounding import fixed, whole


@pytest.mark.parametrize("pk", [1, 42, 2**63 - 1])
def test_bot_and_match_links_are_the_reversed_urls(pk: int) -> None:
    assert bot_url(pk) == reverse("bot-detail", args=[pk])
    assert match_url(pk) == reverse("match-detail", args=[pk])


@pytest.mark.parametrize("username", ["alice", "a.b+c-d_e@f", "zoë", "名前"])
def test_profile_links_are_quoted_as_reverse_quotes_them(username: str) -> None:
    assert profile_url(username) == reverse("profile", args=[username])


@pytest.mark.parametrize(
    ("number", "shown"),
    [(1523.5, "1524"), (1523.4999, "1523"), (2.5, "3"), (-0.4, "0"), (-0.5, "-1"), (0.0, "0")],
)
def test_whole_numbers_round_as_floatformat_does(number: float, shown: str) -> None:
    from django.template.defaultfilters import floatformat

    assert whole(number) == shown == floatformat(number, 0)


def test_fixed_numbers_round_as_floatformat_does() -> None:
    import random

    from django.template.defaultfilters import floatformat

    draw = random.Random(5)
    for _ in range(2000):
        number = draw.choice([draw.uniform(-50, 50), draw.uniform(-0.1, 0.1)])
        for places in (0, 1, 2):
            assert fixed(number, places) == floatformat(number, places), (number, places)
