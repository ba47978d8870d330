"""Entering a tournament: one bot per owner (the house's excepted), the owner's own,
validated, of the event's game, before entries close; withdrawing before then."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from cucumbers.games import GameName
from tests.web.factories import GOOD_BOT, StaffFactory, UserFactory
from tests.web.test_abuse_limits import at_once
from tests.web.tournaments.helpers import house_bot, open_tournament, playing_bot
from web.bots.models import Bot
from web.refusals import Problem
from web.tournaments.entering import EntryError, enter, withdraw

pytestmark = pytest.mark.django_db


def refused(problem: Problem, *args: object) -> str:
    with pytest.raises(EntryError) as caught:
        enter(*args)  # type: ignore[arg-type]
    assert caught.value.problem is problem
    return caught.value.message


def test_an_owner_enters_a_validated_bot_under_its_name(user: User) -> None:
    tournament = open_tournament()
    bot = playing_bot(user, "ducker", GOOD_BOT)
    entry = enter(user, tournament.pk, bot.pk)
    assert (entry.bot, entry.owner, entry.name, entry.version) == (bot, user, "alice/ducker", None)


def test_one_bot_per_owner_and_each_bot_once(user: User) -> None:
    tournament = open_tournament()
    first = playing_bot(user, "first", GOOD_BOT)
    second = playing_bot(user, "second", GOOD_BOT)
    enter(user, tournament.pk, first.pk)
    assert "already entered" in refused(Problem.ALREADY_ENTERED, user, tournament.pk, first.pk)
    message = refused(Problem.ALREADY_ENTERED, user, tournament.pk, second.pk)
    assert "One bot per owner" in message and "alice/first" in message


def test_the_house_enters_all_its_bots_and_staff_may_enter_them(staff: User) -> None:
    tournament = open_tournament()
    bots = [house_bot(name) for name in ("random", "lowest", "highest")]
    enter(bots[0].owner, tournament.pk, bots[0].pk)
    enter(bots[1].owner, tournament.pk, bots[1].pk)
    enter(staff, tournament.pk, bots[2].pk)
    assert tournament.entries.count() == 3


def test_another_owners_bot_is_neither_entered_nor_told_of(user: User, other_user: User) -> None:
    tournament = open_tournament()
    theirs = playing_bot(other_user, "theirs", GOOD_BOT)
    refused(Problem.UNKNOWN_BOT, user, tournament.pk, theirs.pk)
    refused(Problem.UNKNOWN_BOT, user, tournament.pk, 10**9)
    # Staff see every bot, but enter only their own and the house's.
    refused(Problem.FOREIGN_BOT, StaffFactory(username="root"), tournament.pk, theirs.pk)
    assert not tournament.entries.exists()


def test_a_bot_of_another_game_or_without_an_active_version_is_refused(user: User) -> None:
    tournament = open_tournament()
    concombre = playing_bot(user, "concombre", GOOD_BOT, game=GameName.CONCOMBRE)
    message = refused(Problem.GAME_MISMATCH, user, tournament.pk, concombre.pk)
    assert "Five Cucumbers tournament" in message
    waiting = Bot.objects.create(owner=user, name="waiting", game=GameName.FIVE_CUCUMBERS)
    assert "no active version" in refused(Problem.NOT_PLAYING, user, tournament.pk, waiting.pk)


def test_entries_close_at_the_deadline_and_withdrawals_with_them(user: User) -> None:
    tournament = open_tournament()
    bot = playing_bot(user, "late", GOOD_BOT)
    entry = enter(user, tournament.pk, bot.pk)
    tournament.entry_deadline = timezone.now() - timedelta(seconds=1)
    tournament.save()
    with pytest.raises(EntryError) as caught:
        withdraw(user, tournament.pk, entry.pk)
    assert caught.value.problem is Problem.CLOSED
    entry.delete()
    assert "closed" in refused(Problem.CLOSED, user, tournament.pk, bot.pk)


def test_an_owner_withdraws_their_entry_and_nobody_else_can(user: User, other_user: User) -> None:
    tournament = open_tournament()
    entry = enter(user, tournament.pk, playing_bot(user, "mine", GOOD_BOT).pk)
    with pytest.raises(EntryError) as caught:
        withdraw(other_user, tournament.pk, entry.pk)
    assert caught.value.problem is Problem.UNKNOWN_ENTRY
    withdraw(user, tournament.pk, entry.pk)
    assert not tournament.entries.exists()
    # Withdrawn, the owner may enter another bot.
    enter(user, tournament.pk, playing_bot(user, "other", GOOD_BOT).pk)


def test_parallel_entries_of_one_owners_bots_enter_exactly_one(transactional_db: None) -> None:
    owner = UserFactory(username="racer")
    tournament = open_tournament()
    bots = [playing_bot(owner, f"b{n}", GOOD_BOT) for n in range(8)]
    outcomes = at_once(len(bots), lambda i: enter(owner, tournament.pk, bots[i].pk))
    refusals = [o for o in outcomes if isinstance(o, EntryError)]
    assert tournament.entries.count() == 1
    assert len(refusals) == 7 and {e.problem for e in refusals} == {Problem.ALREADY_ENTERED}
