"""``manage.py tournament``: create, enter, show, and a whole event run from the terminal;
mistakes answered with a message, not a traceback."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.web.factories import UserFactory
from tests.web.tournaments.helpers import HIGHEST, LOWEST, house_bot, playing_bot
from web.tournaments.models import Tournament, TournamentStatus

pytestmark = pytest.mark.django_db(transaction=True)


def run(*args: str) -> str:
    out = StringIO()
    call_command("tournament", *args, stdout=out)
    return out.getvalue()


def test_create_enter_and_show_an_open_event() -> None:
    out = run("create", "--name", "Club night", "--tables", "3", "--entries-close", "+30")
    tournament = Tournament.objects.get()
    assert f"tournament {tournament.pk} created: Club night" in out
    assert (tournament.table_size_min, tournament.table_size_max) == (3, 3)
    assert tournament.starts_at == tournament.entry_deadline
    house = [house_bot(name) for name in ("random", "lowest", "highest")]
    out = run("enter", str(tournament.pk), "--house")
    assert all(f"entered house/{bot.name}" in out for bot in house)
    assert "house/random-five-cucumbers" in run("show", str(tournament.pk))


def test_run_plays_a_whole_event_in_the_foreground_and_prints_the_standings() -> None:
    for name in ("heuristic", "random"):
        house_bot(name)
    owners = [UserFactory(username=n) for n in ("ann", "bob")]
    bots = [playing_bot(owners[0], "tall", HIGHEST), playing_bot(owners[1], "short", LOWEST)]
    out = run(
        "run", "--name", "Quick cup", "--tables", "2-4", "--deals", "1", "--house",
        "--bot", str(bots[0].pk), "--bot", str(bots[1].pk), "--sandbox", "process", "--seed", "7",
    )  # fmt: skip
    tournament = Tournament.objects.get()
    assert tournament.status == TournamentStatus.FINISHED
    assert "matches to play" in out and "finished" in out
    lines = [line for line in out.splitlines() if "games," in line]
    assert len(lines) == 4 and " 1" in lines[0] and "house/heuristic-five-cucumbers" in lines[0]


def test_mistakes_are_told_in_words() -> None:
    with pytest.raises(CommandError, match="table"):
        run("create", "--name", "x", "--tables", "1-9")
    with pytest.raises(CommandError, match="a size such as 4"):
        run("create", "--name", "x", "--tables", "four")
    with pytest.raises(CommandError, match="date and time"):
        run("create", "--name", "x", "--entries-close", "tomorrow")
    with pytest.raises(CommandError, match="no tournament 999"):
        run("show", "999")
    run("create", "--name", "Tiny", "--tables", "4")
    tournament = Tournament.objects.get()
    with pytest.raises(CommandError, match="nothing to enter"):
        run("enter", str(tournament.pk))
    with pytest.raises(CommandError, match="Too few entries"):
        run("start", str(tournament.pk))
