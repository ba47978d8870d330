"""Deals no one can know, tried from the attacker's side (issue 39). Mallory has an account
and the public site and API, nothing more. Her deal sets wait on the broker while she reads
everything she can of them (their match pages and API, as herself and anonymously), turns
every number she finds into the deals it would make with the SDK, and uploads a version
with those deals built in (a bot that reads its opponents' hands whenever it is dealt one
it knows). Her queued sets are re-seated with that version and played through the real
pipeline (PostgreSQL, Redis, the platform's and an arena worker, Docker when it answers);
while a rotation is held she reads everything again. It must predict no card: the seeds
are shown to nobody until a set is played, a re-seated set is dealt afresh, and the deals
follow from a key she does not hold. The control: the seeds published once the sets are
played deal exactly the hands the replays show (the check would have caught a leak)."""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cucumbers.engine import GameState
from cucumbers.games import rules_for
from cucumbers.match import game_seed
from tests.web.conftest import logged_in
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from tests.web.matches.memorising_bot import SOURCE as MEMORISING
from tests.web.matches.test_memorising_bot import memorising_outputs, tally
from tests.web.test_end_to_end import sandbox_for_this_machine
from tests.web.tournaments.helpers import HIGHEST
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.deals import keyed_seed
from web.matches.models import Match, MatchStatus
from web.matches.replays import read_replay
from web.pipeline.kinds.ladder import queue_ladder_matches

GAME = "five-cucumbers"
SEATS = 3
GAMES = 3  # deals per rotation
#: Numbers this long could be seeds (a match's are 48-bit); ids, counts and years are not.
SEED_LIKE = re.compile(r"\b\d{7,}\b")


def numbers_in(value: Any) -> set[int]:
    """Every whole number in a JSON value (keys and UUIDs included: a UUID is a number too)."""
    found: set[int] = set()
    if isinstance(value, bool):
        return found
    if isinstance(value, int):
        found.add(value)
    elif isinstance(value, str):
        found |= {int(digits) for digits in SEED_LIKE.findall(value)}
        with contextlib.suppress(ValueError):
            found.add(uuid.UUID(value).int)
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= numbers_in(key) | numbers_in(item)
    elif isinstance(value, list):
        for item in value:
            found |= numbers_in(item)
    return found


def everything_mallory_reads(matches: Iterable[Match], mallory: Client) -> set[int]:
    """What a user can read of ``matches`` while they are still being played (pages and API,
    as herself and as a visitor, and the lists of queued and held matches), as numbers that
    could be seeds. A match finished by the time it was read is left out: its seeds are
    public by then, as they should be (once public, a match stays so)."""
    found: set[int] = set()
    for client in (mallory, Client()):
        for match in matches:
            read: set[int] = set()
            page = client.get(match.get_absolute_url()).content.decode()
            read |= {int(digits) for digits in SEED_LIKE.findall(page)}
            read |= numbers_in(client.get(f"/api/matches/{match.pk}/").json())
            if not Match.objects.get(pk=match.pk).results_public:
                found |= read
        for status in (MatchStatus.QUEUED, MatchStatus.HELD):
            found |= numbers_in(client.get(f"/api/matches/?status={status}").json())
    return found


def first_round_hands(deal_seed: int) -> list[tuple[int, ...]]:
    """The hands the SDK deals in a game's first round from ``deal_seed``."""
    state = GameState(rules_for(GAME), SEATS, deal_seed)
    return [state.hand(seat) for seat in range(SEATS)]


def deals_from(seeds: Iterable[int]) -> dict[tuple[int, ...], list[tuple[int, ...]]]:
    """Every first-round deal a seed could make, as a match seed (its games' seeds) or as a
    game's own deal seed: each hand mapped to the whole deal it belongs to."""
    known: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for seed in seeds:
        for deal_seed in (seed, *(game_seed(seed, number) for number in range(1, GAMES + 1))):
            deal = first_round_hands(deal_seed)
            for hand in deal:
                known[hand] = deal
    return known


def attacker_source(known: dict[tuple[int, ...], list[tuple[int, ...]]]) -> bytes:
    """The memorising bot (``memorising_bot_source.py``) with ``known`` deals built in."""
    built_in = repr({hand: list(deal) for hand, deal in known.items()})
    source = MEMORISING.decode().replace("self.deals = {}", f"self.deals = {built_in}")
    assert source != MEMORISING.decode()
    return source.encode()


@pytest.mark.django_db(transaction=True)
def test_an_owner_who_reads_everything_of_her_queued_and_held_sets_predicts_no_card(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = GAMES  # type: ignore[attr-defined]
    settings.LADDER_DUPLICATE = True  # type: ignore[attr-defined]
    settings.LADDER_MIN_PLAYERS = settings.LADDER_MAX_PLAYERS = SEATS  # type: ignore[attr-defined]
    sandbox = sandbox_for_this_machine().value
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    mallory, ann, bob = (UserFactory(username=name) for name in ("mallory", "ann", "bob"))
    env = platform_env(
        MATCH_GAMES=str(GAMES), LADDER_QUEUE_TARGET="0", LADDER_MIN_PLAYERS=str(SEATS)
    )
    with platform_broker(), platform_worker(env, platform_log):
        first = [
            upload_version(user, name, data, new_bot_name=user.username, game=GAME)
            for user, name, data in [
                (mallory, "good.py", GOOD_BOT),
                (ann, "good.py", GOOD_BOT),
                (bob, "high.py", HIGHEST),
            ]
        ]

        def active(versions: list[BotVersion]) -> bool:
            statuses = BotVersion.objects.filter(pk__in=[v.pk for v in versions])
            return set(statuses.values_list("status", flat=True)) == {VersionStatus.ACTIVE}

        with arena_worker(arena_env(sandbox), arena_log):
            wait_for(lambda: active(first), 180, "the first uploads' validation", arena_log)
        # No arena worker now: her two deal sets wait on the broker, sent, for her to read.
        queued = queue_ladder_matches(GAME, 2 * SEATS)
        assert {m.status for m in queued} == {MatchStatus.QUEUED} and len(queued) == 2 * SEATS
        before = {m.pk: m.seed for m in Match.objects.filter(pk__in=[m.pk for m in queued])}
        reader = logged_in(mallory)
        candidates = everything_mallory_reads(queued, reader)
        # A seed shown would be a large number; the small ones (ids, counts) are left out
        # of the bot, whose source has a size limit (they are checked below all the same).
        known = deals_from(c for c in candidates if c >= 2**20)
        mine = Bot.objects.get(owner=mallory)
        response = reader.post(
            f"/api/bots/{mine.pk}/versions/",
            {"file": SimpleUploadedFile("attack.py", attacker_source(known))},
        )
        assert response.status_code == 201, response.content
        attack = BotVersion.objects.get(bot=mine, number=2)
        held_reads: set[int] = set()
        held_seen: list[int] = []
        with arena_worker(arena_env(sandbox), arena_log):
            wait_for(lambda: active([attack]), 180, "the attack's validation", arena_log)

            def a_rotation_is_held() -> bool:
                held = Match.objects.filter(
                    pk__in=before, status=MatchStatus.HELD, participants__version=attack
                )
                if not held.exists():
                    return False
                held_seen.extend(held.values_list("pk", flat=True))
                pending = Match.objects.filter(
                    pk__in=before,
                    status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING, MatchStatus.HELD],
                )
                held_reads.update(everything_mallory_reads(list(pending), reader))
                return True

            wait_for(a_rotation_is_held, 300, "a held rotation of hers", arena_log, platform_log)

            def all_finished() -> bool:
                statuses = Match.objects.filter(pk__in=before).values_list("status", flat=True)
                return set(statuses) == {MatchStatus.FINISHED}

            wait_for(all_finished, 300, "her deal sets", arena_log, platform_log)
    played = list(Match.objects.filter(pk__in=before).order_by("pk"))
    # The sets she read were re-seated with her attack, dealt afresh, and played in the
    # sandbox, whole.
    assert {m.sandbox for m in played} == {sandbox}
    assert all(m.participants.get(bot=mine).version_id == attack.pk for m in played)
    # She foresaw no deal, in any game.
    tallies = [tally(text) for text in memorising_outputs(played, mine)]
    assert len(tallies) == len(played) * GAMES
    assert all(seen > 0 for _, _, seen in tallies)
    # (A deal foreseen: every opponent's card known; a hand of hers back by chance is not.)
    assert [foreseen for foreseen, _, _ in tallies] == [0 for _ in tallies]
    assert all(m.seed != before[m.pk] for m in played)

    # Nothing she read, queued or held, was a seed of these deals.
    def seeds_of(matches: list[Match]) -> set[int]:
        found = {keyed_seed(before[m.pk]) for m in matches} | {before[m.pk] for m in matches}
        found |= {m.seed for m in matches} | {m.deal_seed for m in matches if m.deal_seed}
        return found | {g.seed for m in matches for g in m.games.all()}

    assert None not in {m.deal_seed for m in played}
    assert not (candidates | held_reads) & seeds_of(played)
    # The control: the published seeds deal exactly what was played (anyone can check a
    # finished set), so the same check would have caught a seed she could read.
    control = deals_from(m.deal_seed for m in played if m.deal_seed is not None)
    for match in played:
        for game in match.games.all():
            hands = [tuple(sorted(h)) for h in read_replay(game)["rounds"][0]["hands"]]
            assert all(control.get(hand) == hands for hand in hands), (match.pk, game.number)
    assert held_seen  # she read her sets while a rotation of them was held
