"""The platform's side of the broker, from the attacker's side: messages written to the
``reports`` queue by someone holding the broker, or an arena host's key, delivered to the
platform's own tasks (``match_started_task``, ``match_report_task``) as its worker would
run them, against PostgreSQL. Each forgery is refused (logged ``event=match.refused``):
nothing recorded, no rating moved, no version's status changed; then the genuine arena
host's report of the same attempt is recorded. The same attacks through real Celery workers
on Redis: ``test_signed_pipeline.py``."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import pytest

from arena.contract import (
    MatchJob,
    MatchReport,
    MatchStarted,
    ReportStatus,
    dump,
    load_report,
)
from arena.playing import play_job
from arena.signing import Purpose, Signer, generate_key
from tests.web.factories import GOOD_BOT, UserFactory
from tests.web.matches.arena_helpers import ladder_bots, queued_match
from web.arena_hosts.hosts import add_host, revoke_host
from web.bots.models import Bot, BotVersion, VersionStatus
from web.bots.uploads import upload_version
from web.matches.models import Match, MatchGame, MatchStatus, RatingChange
from web.pipeline.dispatch import issue_job
from web.pipeline.tasks import match_report_task, match_started_task

pytestmark = pytest.mark.django_db

Raw = dict[str, Any]


@pytest.fixture(autouse=True)
def _short_matches(settings: object) -> None:
    settings.MATCH_GAMES = 3  # type: ignore[attr-defined]


class Hosts:
    """Arena hosts: ``genuine`` and ``other`` registered, ``revoked`` registered then
    revoked, ``stranger`` never registered."""

    def __init__(self) -> None:
        self.genuine = Signer("arena-a", generate_key())
        self.other = Signer("arena-b", generate_key())
        self.revoked = Signer("arena-r", generate_key())
        self.stranger = Signer("arena-x", generate_key())
        for host in (self.genuine, self.other, self.revoked):
            add_host(host.name, host.public)
        revoke_host(self.revoked.name)


@pytest.fixture
def hosts() -> Hosts:
    return Hosts()


def started(signer: Signer, job: MatchJob) -> bool:
    message = MatchStarted(match=job.match, attempt=job.attempt, worker="w", sandbox="process")
    return bool(match_started_task(signer.seal(Purpose.STARTED, dump(message))))


def reported(signer: Signer, report: MatchReport) -> str:
    return str(match_report_task(signer.seal(Purpose.REPORT, dump(report))))


def edited(report: MatchReport, edit: Callable[[Raw], object]) -> MatchReport:
    raw = json.loads(dump(report))
    edit(raw)
    return load_report(json.dumps(raw))


def assert_nothing_recorded(match: Match, bots: list[Bot]) -> None:
    match.refresh_from_db()
    assert match.status in (MatchStatus.QUEUED, MatchStatus.RUNNING)
    assert not MatchGame.objects.filter(match=match).exists()
    assert not RatingChange.objects.exists()
    assert all(p.placement is None for p in match.participants.all())
    for bot in bots:
        bot.refresh_from_db()
        assert (bot.rating, bot.games) == (1500.0, 0)


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "event=match.refused" in r.getMessage()]


def more_games(raw: Raw) -> None:
    # The fault campaign's 40-game report for a 3-game match.
    raw["games"] = [dict(raw["games"][n % 3], number=n + 1) for n in range(40)]


def no_replays(raw: Raw) -> None:
    for game in raw["games"]:
        game["replay"] = None


def rule_breaking_replay(raw: Raw) -> None:
    play = raw["games"][0]["replay"]["rounds"][0]["tricks"][0]["plays"][0]
    play["card"] = 16 - play["card"] if play["card"] != 8 else 9


def other_seeds_and_seating(raw: Raw) -> None:
    for game in raw["games"]:
        game["seed"] += 1
        game["bots"] = game["bots"][::-1]


def other_sources(raw: Raw) -> None:
    raw["sources"] = ["0" * 64 for _ in raw["sources"]]


def reversed_placement(raw: Raw) -> None:
    for game in raw["games"]:
        game["placement"] = game["placement"][::-1]
        game["replay"]["placement"] = game["replay"]["placement"][::-1]


@pytest.mark.parametrize(
    ("forge", "reason"),
    [
        (lambda h, r: dump(r), "not a signed envelope"),
        (lambda h, r: h.stranger.seal(Purpose.REPORT, dump(r)), "unknown arena host 'arena-x'"),
        (lambda h, r: h.revoked.seal(Purpose.REPORT, dump(r)), "arena host 'arena-r' was revoked"),
        (lambda h, r: h.other.seal(Purpose.REPORT, dump(r)), "started by arena host arena-a"),
        (
            lambda h, r: Signer("arena-a", generate_key()).seal(Purpose.REPORT, dump(r)),
            "bad signature for signer 'arena-a'",
        ),
        (lambda h, r: h.genuine.seal(Purpose.STARTED, dump(r)), "a 'started' message where"),
        (lambda h, r: h.genuine.seal(Purpose.REPORT, dump(edited(r, no_replays))), "no replay"),
        (
            lambda h, r: h.genuine.seal(Purpose.REPORT, dump(edited(r, rule_breaking_replay))),
            "the replay breaks the rules",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REPORT, dump(edited(r, more_games))),
            "40 games for a job of 3",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REPORT, dump(edited(r, other_seeds_and_seating))),
            "the plan's is",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REPORT, dump(edited(r, other_sources))),
            "are not the job's",
        ),
        (
            lambda h, r: h.genuine.seal(Purpose.REPORT, dump(edited(r, reversed_placement))),
            "placement",
        ),
    ],
    ids=[
        "unsigned",
        "an-unregistered-key",
        "a-revoked-host",
        "another-host-than-the-attempts",
        "a-key-posing-as-the-genuine-host",
        "a-started-signature-relabelled",
        "missing-replays",
        "a-rule-breaking-replay",
        "more-games-than-planned",
        "wrong-seeds-and-seating",
        "wrong-sources",
        "a-placement-rewritten-in-report-and-replay",
    ],
)
def test_a_forged_report_is_refused_and_the_genuine_one_is_then_recorded(
    hosts: Hosts,
    caplog: pytest.LogCaptureFixture,
    forge: Callable[[Hosts, MatchReport], str],
    reason: str,
) -> None:
    bots = ladder_bots(3)
    match = queued_match(bots)
    job = issue_job(match.pk)
    assert isinstance(job, MatchJob)
    assert started(hosts.genuine, job)
    genuine = play_job(job, "process", "test-worker")
    with caplog.at_level(logging.INFO, logger="web.pipeline.transitions"):
        assert match_report_task(forge(hosts, genuine)) == "refused"
    assert any(reason in line for line in refusals(caplog)), refusals(caplog)
    assert_nothing_recorded(match, bots)
    assert reported(hosts.genuine, genuine) == "finished"
    match.refresh_from_db()
    assert (match.status, match.arena_host) == (MatchStatus.FINISHED, "arena-a")
    assert MatchGame.objects.filter(match=match).count() == 3
    assert RatingChange.objects.filter(match=match).count() == 3 * 3


def test_a_replayed_report_of_an_earlier_attempt_is_never_recorded(hosts: Hosts) -> None:
    bots = ladder_bots(3)
    match = queued_match(bots)
    first = issue_job(match.pk)
    assert isinstance(first, MatchJob) and started(hosts.genuine, first)
    old = play_job(first, "process", "test-worker")
    # The attempt is lost (an infrastructure error here); the match is sent again.
    failed = MatchReport(
        match=first.match,
        attempt=first.attempt,
        worker="w",
        sandbox="process",
        status=ReportStatus.INFRASTRUCTURE_ERROR,
        reason="the engine went away",
    )
    assert reported(hosts.genuine, failed) == "retry"
    Match.objects.filter(pk=match.pk).update(retry_at=None)
    second = issue_job(match.pk)
    assert isinstance(second, MatchJob) and started(hosts.genuine, second)
    # The genuine, correctly signed report of attempt 1, delivered again.
    assert reported(hosts.genuine, old) == "skipped"
    assert_nothing_recorded(match, bots)
    assert reported(hosts.genuine, play_job(second, "process", "test-worker")) == "finished"
    assert MatchGame.objects.filter(match=match).count() == 3


def test_a_host_cannot_start_an_attempt_another_host_started(
    hosts: Hosts, caplog: pytest.LogCaptureFixture
) -> None:
    bots = ladder_bots(2)
    match = queued_match(bots)
    job = issue_job(match.pk)
    assert isinstance(job, MatchJob) and started(hosts.genuine, job)
    with caplog.at_level(logging.INFO, logger="web.pipeline.transitions"):
        assert not started(hosts.other, job)
        assert not started(hosts.stranger, job)
    assert len(refusals(caplog)) == 2
    match.refresh_from_db()
    assert (match.arena_host, match.worker) == ("arena-a", "w")


def test_a_report_that_overtakes_its_started_binds_the_attempt_to_its_signer(
    hosts: Hosts,
) -> None:
    bots = ladder_bots(2)
    match = queued_match(bots)
    job = issue_job(match.pk)
    assert isinstance(job, MatchJob)
    assert reported(hosts.other, play_job(job, "process", "quick")) == "finished"
    match.refresh_from_db()
    assert (match.status, match.arena_host) == (MatchStatus.FINISHED, "arena-b")
    assert not started(hosts.genuine, job)  # too late, and not the attempt's host


def test_an_infrastructure_error_from_another_host_cannot_release_the_attempt(
    hosts: Hosts,
) -> None:
    bots = ladder_bots(2)
    match = queued_match(bots)
    job = issue_job(match.pk)
    assert isinstance(job, MatchJob) and started(hosts.genuine, job)
    forged = MatchReport(
        match=job.match,
        attempt=job.attempt,
        worker="w",
        sandbox="docker",
        status=ReportStatus.INFRASTRUCTURE_ERROR,
        reason="pretend",
    )
    assert reported(hosts.other, forged) == "refused"
    match.refresh_from_db()
    assert (match.status, match.attempt, match.attempts) == (MatchStatus.RUNNING, job.attempt, 1)


def test_a_forged_validation_leaves_the_version_waiting_then_the_genuine_one_decides(
    hosts: Hosts,
) -> None:
    crasher = b"def play(view):\n    raise RuntimeError('boom')\n"
    version = upload_version(
        UserFactory(username="cat"), "c.py", crasher, new_bot_name="cat", game="concombre"
    )
    assert version.validation_match_id is not None
    job = issue_job(version.validation_match_id)
    assert isinstance(job, MatchJob) and started(hosts.genuine, job)
    genuine = play_job(job, "process", "test-worker")
    assert len(genuine.games) == 1  # the crash ends the validation at game 1

    def clean(raw: Raw) -> None:
        # The forger's validation: every game played out, no fault, the crasher first.
        for number in range(len(raw["games"]), job.games):
            raw["games"].append(dict(raw["games"][0], number=number + 1))
        for game in raw["games"]:
            game["faults"] = []

    assert match_report_task(hosts.genuine.seal(Purpose.REPORT, dump(edited(genuine, clean))))
    version.refresh_from_db()
    assert version.status == VersionStatus.VALIDATING
    assert reported(hosts.genuine, genuine) == "finished"
    version.refresh_from_db()
    assert version.status == VersionStatus.REJECTED
    assert BotVersion.objects.filter(status=VersionStatus.ACTIVE, pk=version.pk).count() == 0


def test_the_genuine_report_of_a_good_upload_activates_it(hosts: Hosts) -> None:
    version = upload_version(
        UserFactory(username="dan"), "d.py", GOOD_BOT, new_bot_name="dan", game="concombre"
    )
    job = issue_job(version.validation_match_id or 0)
    assert isinstance(job, MatchJob) and started(hosts.genuine, job)
    assert reported(hosts.genuine, play_job(job, "process", "test-worker")) == "finished"
    version.refresh_from_db()
    assert version.status == VersionStatus.ACTIVE
