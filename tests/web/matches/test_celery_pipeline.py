"""The whole pipeline through real workers on Redis: an arena worker started with ``env -i``
(the broker URL, the sandbox and the engine's address are all it has: no database, no secret
key, no files of the platform's) and the platform's worker, which records what it sends back.
Uploads are validated, ladder matches rated and a challenge played, in the sandbox of this
machine (Docker when it answers, required under ``CI=true``); an arena worker killed with
SIGKILL in the middle of a match: after a restart the match completes, recorded once, rated
once; the urgent queue is served before the ladder."""

from __future__ import annotations

import math
import signal
from pathlib import Path

import pytest

from tests.web.factories import GOOD_BOT, PLAY_FUNCTION_BOT, UserFactory
from tests.web.matches.arena_helpers import assert_history_consistent, make_active
from tests.web.matches.celery_worker import (
    arena_env,
    arena_worker,
    kill,
    platform_broker,
    platform_env,
    platform_worker,
    require_redis,
    wait_for,
)
from tests.web.test_end_to_end import sandbox_for_this_machine
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchStatus, RatingChange
from web.pipeline.dispatch import send_match
from web.pipeline.kinds.challenge import create_challenge
from web.pipeline.kinds.ladder import queue_ladder_matches

pytestmark = pytest.mark.django_db(transaction=True)

HIGHEST = b"def play(view):\n    return max(view.legal)\n"


def status_of(match_id: int) -> str:
    return Match.objects.get(pk=match_id).status


def test_a_worker_with_only_the_broker_plays_validation_ladder_and_challenge_matches(
    tmp_path: Path, settings: object
) -> None:
    require_redis()
    settings.MATCH_GAMES = 2  # type: ignore[attr-defined]  (a match's games are set when queued)
    sandbox = sandbox_for_this_machine().value
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    # No debut tables: the ladder's matches are the three queued below, all provisional.
    with (
        platform_broker(),
        platform_worker(platform_env(LADDER_DEBUT="0"), platform_log),
        arena_worker(arena_env(sandbox), arena_log),
    ):
        # Each upload's validation match is sent once its transaction commits.
        users = [UserFactory(username=name) for name in ("ann", "bob", "cat")]
        for user, data in zip(users, [GOOD_BOT, PLAY_FUNCTION_BOT, HIGHEST], strict=True):
            upload_version(user, "b.py", data, new_bot_name=user.username, game="five-cucumbers")

        def all_active() -> bool:
            statuses = set(BotVersion.objects.values_list("status", flat=True))
            return statuses == {VersionStatus.ACTIVE}

        wait_for(all_active, 120, "validation of the uploads", arena_log, platform_log)
        ladder = queue_ladder_matches("five-cucumbers", 3)
        assert len(ladder) >= 3  # whole deal sets: one match per seat rotation
        bots = list(Bot.objects.order_by("pk"))
        challenge = create_challenge(users[0], bots[0].pk, [bots[1].pk, bots[2].pk])
        matches = [*ladder, challenge]

        def all_finished() -> bool:
            return all(status_of(m.pk) == MatchStatus.FINISHED for m in matches)

        wait_for(all_finished, 120, "the ladder matches and the challenge", arena_log, platform_log)
    played = Match.objects.filter(pk__in=[m.pk for m in matches])
    validations = Match.objects.filter(kind="validation")
    for match in [*played, *validations]:
        assert (match.sandbox, match.worker, match.attempts) == (sandbox, "test-arena", 1)
    bots = list(Bot.objects.all())
    assert any(bot.rating != 1500.0 for bot in bots)
    assert math.isclose(sum(bot.rating for bot in bots), 3 * 1500.0)  # all provisional: one K
    # Duplicate deals: each ladder match plays one seat rotation of its deal set.
    assert all(m.duplicate and m.rotation is not None and m.deal_set for m in ladder)
    rated = sum(m.participants.count() * m.games_planned for m in ladder)
    assert RatingChange.objects.count() == rated  # the ladder's games, not the challenge's
    assert not RatingChange.objects.filter(match=challenge).exists()
    assert challenge.games.count() == 2
    assert_history_consistent(bots)


def test_a_match_whose_worker_is_killed_is_recorded_once_after_a_restart(
    tmp_path: Path, settings: object
) -> None:
    settings.LADDER_DUPLICATE = False  # type: ignore[attr-defined]  (one match, not a set)
    require_redis()
    settings.MATCH_GAMES = 40  # type: ignore[attr-defined]
    settings.LADDER_DEBUT_GAMES = 40  # type: ignore[attr-defined]  (new bots: a debut table)
    sandbox = sandbox_for_this_machine().value
    for name in ("dan", "eve", "fay"):
        make_active(name)
    # Long enough to be killed in the middle; a short visibility timeout so that the
    # restarted worker gets the message again quickly.
    timeouts = {"CELERY_VISIBILITY_TIMEOUT": "4", "CELERY_RESTORE_INTERVAL": "1"}
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with platform_broker(**timeouts), platform_worker(platform_env(**timeouts), platform_log):
        with arena_worker(arena_env(sandbox, **timeouts), arena_log) as worker:
            (match,) = queue_ladder_matches("concombre", 1)
            wait_for(
                lambda: status_of(match.pk) == MatchStatus.RUNNING,
                60,
                "the match to start",
                arena_log,
            )
            kill(worker, signal.SIGKILL)
        assert status_of(match.pk) == MatchStatus.RUNNING
        assert not RatingChange.objects.exists()
        with arena_worker(arena_env(sandbox, **timeouts), arena_log):
            wait_for(
                lambda: status_of(match.pk) == MatchStatus.FINISHED,
                150,
                "the match played again",
                arena_log,
                platform_log,
            )
    match.refresh_from_db()
    # The same job, delivered again: the same attempt, recorded once.
    assert match.attempts == 1
    seated = list(Bot.objects.filter(participations__match=match))
    games = 40  # one plain match (LADDER_DUPLICATE off above)
    assert match.games_planned == match.games.count() == games
    assert RatingChange.objects.filter(match=match).count() == len(seated) * games
    assert all(bot.games == games for bot in seated)
    assert_history_consistent(list(Bot.objects.all()))
    assert "playing (ladder)" in arena_log.read_text()


def test_a_validation_is_served_before_the_queued_ladder(tmp_path: Path, settings: object) -> None:
    require_redis()
    settings.MATCH_GAMES = 1  # type: ignore[attr-defined]
    settings.VALIDATION_GAMES = 1  # type: ignore[attr-defined]
    for name in ("gil", "hal", "ivy"):
        make_active(name)
    arena_log, platform_log = tmp_path / "arena.log", tmp_path / "platform.log"
    with platform_broker():
        # Everything is waiting before the worker starts: six ladder matches, then the upload.
        ladder = queue_ladder_matches("concombre", 6)
        newcomer = upload_version(
            UserFactory(username="joy"), "b.py", GOOD_BOT, new_bot_name="joy", game="concombre"
        )
        assert newcomer.validation_match_id is not None
        sent = [m.pk for m in ladder] + [newcomer.validation_match_id]
        assert not send_match(newcomer.validation_match_id)  # already sent on commit
        with (
            platform_worker(platform_env(), platform_log),
            arena_worker(arena_env("process"), arena_log),
        ):
            wait_for(
                lambda: all(status_of(pk) == MatchStatus.FINISHED for pk in sent),
                120,
                "every match sent",
                arena_log,
                platform_log,
            )
    started = dict(Match.objects.values_list("pk", "started_at"))
    first_ladder = min(started[m.pk] for m in ladder)
    assert started[newcomer.validation_match_id] < first_ladder, (
        "the validation waited behind the ladder"
    )
