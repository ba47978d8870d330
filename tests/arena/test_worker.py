"""The arena worker's settings, without a broker: what it reads from its environment, how a
bad value stops it at once with the variable named, and what of a platform's environment it
is given (nothing secret). Its matches through a real broker are
tests/web/matches/test_celery_pipeline.py's and test_engine_outage.py's."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from arena.broker import BrokerSettings, BrokerSettingsError, Role
from arena.contract import ReportStatus
from arena.worker import _refusal, worker_environment
from tests.arena.conftest import require_sandbox

REPO = Path(__file__).resolve().parents[2]


def test_the_broker_is_redis_with_the_urgent_queue_first_or_a_local_folder(
    tmp_path: Path,
) -> None:
    redis = BrokerSettings.from_env(
        {"REDIS_URL": "rediss://:secret@broker:6380/0", "CELERY_VISIBILITY_TIMEOUT": "60"}
    ).celery(Role.ARENA)
    assert redis["broker_url"] == "rediss://:secret@broker:6380/0"
    options = redis["broker_transport_options"]
    assert (options["visibility_timeout"], options["queue_order_strategy"]) == (60, "priority")
    local = BrokerSettings.from_env({"CUCUMBERS_BROKER_DIR": str(tmp_path)}).celery(Role.ARENA)
    assert local["broker_url"] == "filesystem://"
    assert (tmp_path / "queue").is_dir()


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "REDIS_URL"),
        ({"REDIS_URL": "redis://r/0", "CELERY_VISIBILITY_TIMEOUT": "soon"}, "CELERY_VISIBILITY"),
        ({"REDIS_URL": "redis://r/0", "CELERY_RESTORE_INTERVAL": "0"}, "CELERY_RESTORE_INTERVAL"),
    ],
)
def test_a_broker_setting_that_cannot_be_used_is_named(env: dict[str, str], named: str) -> None:
    with pytest.raises(BrokerSettingsError, match=named):
        BrokerSettings.from_env(env).celery(Role.ARENA)


def test_a_worker_is_given_nothing_of_the_platforms_secrets() -> None:
    platform = {
        "DATABASE_URL": "postgres://arena:pw@db/arena",
        "SECRET_KEY": "s3cret",
        "S3_SECRET_ACCESS_KEY": "key",
        "DATA_DIR": "/data",
        "REDIS_URL": "redis://redis:6379/0",
        "CUCUMBERS_SANDBOX_MEMORY": "128m",
        "SANDBOX": "docker",
        "PATH": "/usr/bin",
    }
    assert worker_environment(platform) == {
        "REDIS_URL": "redis://redis:6379/0",
        "CUCUMBERS_SANDBOX_MEMORY": "128m",
        "SANDBOX": "docker",
        "PATH": "/usr/bin",
    }


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({}, "no broker: set REDIS_URL"),
        ({"REDIS_URL": "redis://127.0.0.1:9/0", "SANDBOX": "none"}, "SANDBOX='none'"),
        (
            {"REDIS_URL": "redis://127.0.0.1:9/0", "CUCUMBERS_SANDBOX_MEMORY": "lots"},
            "CUCUMBERS_SANDBOX_MEMORY",
        ),
        ({"REDIS_URL": "redis://127.0.0.1:9/0", "LOG_FORMAT": "xml"}, "LOG_FORMAT='xml'"),
    ],
)
def test_the_worker_command_stops_at_once_on_a_bad_setting(
    env: dict[str, str], message: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena", "worker"],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_job_the_worker_cannot_read_becomes_an_infrastructure_error_for_its_match() -> None:
    attempt = uuid.uuid4()
    newer = json.dumps({"schema": "cucumbers-match-job/2", "match": 7, "attempt": str(attempt)})
    report = _refusal(newer, "worker w cannot read this job: schema")
    assert report is not None
    assert (report.match, report.attempt) == (7, attempt)
    assert report.status is ReportStatus.INFRASTRUCTURE_ERROR and report.games == ()
    assert _refusal("not json at all", "unreadable") is None  # nothing to report it against


def test_importing_the_worker_leaves_a_process_its_own_celery_app() -> None:
    # The platform's tasks are sent through the current app: the arena's must not take over
    # in a process that imports it (the launcher, a test run).
    code = (
        "from celery import Celery, current_app\n"
        "mine = Celery('mine')\n"
        "import arena.worker\n"
        "assert current_app.main == 'mine', current_app.main\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_a_runtime_the_engine_does_not_know_stops_the_worker_naming_it() -> None:
    require_sandbox()
    env = {
        "PATH": "/usr/bin:/bin",
        "REDIS_URL": "redis://127.0.0.1:9/0",  # never reached: the check comes first
        "CUCUMBERS_SANDBOX_RUNTIME": "kata-nowhere",
    }
    if "DOCKER_HOST" in os.environ:
        env["DOCKER_HOST"] = os.environ["DOCKER_HOST"]
    result = subprocess.run(
        [sys.executable, "-m", "arena", "worker"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    assert "the Docker engine has no runtime 'kata-nowhere' (it has " in result.stderr
    assert "ready." not in result.stderr  # it never took work


def test_with_log_format_json_celerys_handlers_write_json_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena import worker
    from arena.logs import JsonFormatter

    stream = io.StringIO()
    logger = logging.getLogger("arena-handlers-under-test")
    logger.addHandler(logging.StreamHandler(stream))
    logger.propagate = False
    monkeypatch.setenv("LOG_FORMAT", "json")
    worker._json_lines(logger)
    assert isinstance(logger.handlers[0].formatter, JsonFormatter)
    logger.warning("match %s attempt %s: playing", 3, "a1")
    entry = json.loads(stream.getvalue())
    assert (entry["logger"], entry["level"]) == ("arena-handlers-under-test", "WARNING")
    assert entry["message"] == "match 3 attempt a1: playing"
