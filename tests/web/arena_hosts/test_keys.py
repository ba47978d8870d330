"""The platform's signing key (``ARENA_SIGNING_KEY_FILE``): in production the web server and
the platform's worker do not start without a usable one, naming the setting, while
``migrate``, ``collectstatic`` and ``check --deploy`` need none; a job that cannot be signed
is never sent (the match stays queued and unsent, for the reaper)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.signing import write_key_pair
from tests.web.matches.arena_helpers import ladder_bots, queued_match
from tests.web.test_settings import REPO, run_probe, scrubbed_environment
from web.matches.models import Match
from web.pipeline.dispatch import send_match

PRODUCTION = {"SECRET_KEY": "s" * 50}


def test_the_web_server_does_not_start_without_the_signing_key(tmp_path: Path) -> None:
    started = run_probe("import web.wsgi", **PRODUCTION, DATA_DIR=str(tmp_path))
    assert started.returncode != 0
    assert "ARENA_SIGNING_KEY_FILE is not set" in started.stderr


def test_nor_with_a_key_file_it_cannot_read(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "platform"
    started = run_probe(
        "import web.wsgi", **PRODUCTION, DATA_DIR=str(tmp_path), ARENA_SIGNING_KEY_FILE=str(missing)
    )
    assert started.returncode != 0
    assert f"ARENA_SIGNING_KEY_FILE: cannot read the key file {missing}" in started.stderr


def test_with_its_key_the_web_server_starts(tmp_path: Path) -> None:
    write_key_pair(tmp_path / "platform")
    started = run_probe(
        "import web.wsgi; print('up')",
        **PRODUCTION,
        DATA_DIR=str(tmp_path),
        ARENA_SIGNING_KEY_FILE=str(tmp_path / "platform"),
    )
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "up"


def test_the_platforms_worker_does_not_start_without_the_signing_key(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "web", "worker", "--concurrency=1", "-Q", "reports"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**scrubbed_environment(), **PRODUCTION, "DATA_DIR": str(tmp_path)},
    )
    assert result.returncode != 0
    assert "platform worker: error: ARENA_SIGNING_KEY_FILE is not set" in result.stderr


@pytest.mark.parametrize(
    "command",
    [["collectstatic", "--noinput", "-v", "0"], ["check", "--deploy", "--fail-level", "ERROR"]],
    ids=["collectstatic", "check-deploy"],
)
def test_management_commands_that_send_nothing_need_no_key(
    tmp_path: Path, command: list[str]
) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", *command],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**scrubbed_environment(), **PRODUCTION, "DATA_DIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.django_db
def test_a_job_that_cannot_be_signed_is_not_sent(settings: object) -> None:
    settings.ARENA_SIGNING_KEY_FILE = ""  # type: ignore[attr-defined]
    match = queued_match(ladder_bots(2))
    assert not send_match(match.pk)
    match.refresh_from_db()
    assert (match.attempt, match.sent_at, match.attempts) == (None, None, 0)
    assert Match.objects.filter(pk=match.pk, status="queued").exists()


def test_compose_migrate_and_bootstrap_need_no_key_and_leave_the_jobs_unsent(
    tmp_path: Path,
) -> None:
    # docker-compose.yml's migrate service: the house bots' validations are queued, their
    # jobs cannot be signed there, so they stay unsent for the reaper (beat holds the key).
    env = {**scrubbed_environment(), **PRODUCTION, "DATA_DIR": str(tmp_path)}
    for command in (["migrate", "--noinput", "-v", "0"], ["bootstrap", "--no-demo"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
        assert result.returncode == 0, result.stderr
    assert "event=match.unsent" in result.stderr
    assert "ARENA_SIGNING_KEY_FILE is not set" in result.stderr
