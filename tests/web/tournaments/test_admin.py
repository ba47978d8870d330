"""Staff create a tournament in the admin (its seed drawn, its creator kept); once started,
what was played is read-only there."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.tournaments.helpers import open_tournament, playing_bot
from web.pipeline.kinds.tournament import start
from web.tournaments.entering import enter
from web.tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def management(prefix: str) -> dict[str, str]:
    return {f"{prefix}-{key}": value for key, value in
            {"TOTAL_FORMS": "0", "INITIAL_FORMS": "0", "MIN_NUM_FORMS": "0",
             "MAX_NUM_FORMS": "1000"}.items()}  # fmt: skip


@pytest.fixture
def staff() -> User:
    return UserFactory(username="boss", is_staff=True, is_superuser=True)


def test_staff_create_a_tournament_in_the_admin(staff: User) -> None:
    admin = logged_in(staff)
    form = {
        "name": "Spring cup", "description": "", "game": "concombre", "format": "round-robin",
        "table_size_min": "3", "table_size_max": "4", "rounds": "", "deals_per_table": "2",
        "entry_deadline_0": "2030-03-01", "entry_deadline_1": "18:00:00",
        "starts_at_0": "2030-03-01", "starts_at_1": "19:00:00",
        **management("entries"), **management("tables"),
    }  # fmt: skip
    answer = admin.post("/admin/tournaments/tournament/add/", form)
    assert answer.status_code == 302, answer.content.decode()[-2000:]
    tournament = Tournament.objects.get()
    assert (tournament.name, tournament.game, tournament.created_by) == (
        "Spring cup",
        "concombre",
        staff,
    )
    assert tournament.seed > 0
    bad = admin.post("/admin/tournaments/tournament/add/", {**form, "table_size_max": "9"})
    assert bad.status_code == 200 and "is played by 2 to 7" in bad.content.decode()


def test_a_started_tournament_is_read_only_but_for_its_words(staff: User) -> None:
    tournament = open_tournament()
    for n in range(3):
        owner = UserFactory(username=f"o{n}")
        enter(owner, tournament.pk, playing_bot(owner, f"b{n}", GOOD_BOT).pk)
    start(tournament.pk, send=False)
    page = logged_in(staff).get(f"/admin/tournaments/tournament/{tournament.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="name"' in html and 'name="table_size_min"' not in html
    assert Client().get("/admin/tournaments/tournament/").status_code == 302
