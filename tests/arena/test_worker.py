"""The arena worker's settings, without a broker: what it reads from its environment, how a
bad value stops it at once with the variable named, and what of a platform's environment it
is given (nothing secret). Its matches through a real broker are
tests/web/matches/test_celery_pipeline.py's and test_engine_outage.py's."""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

import arena.worker
from arena.broker import BrokerSettings, BrokerSettingsError, Role
from arena.contract import (
    JobLimits,
    JobSeat,
    MatchJob,
    MatchKind,
    MatchReport,
    ReportStatus,
    dump,
)
from arena.signing import PLATFORM_SIGNER, Purpose, Signer, generate_key, write_key_pair
from arena.worker import (
    WorkerConfig,
    WorkerKeys,
    WorkerKeysError,
    _refusal,
    worker_environment,
)
from tests.arena.conftest import require_sandbox

REPO = Path(__file__).resolve().parents[2]


def worker_keys_env(folder: Path) -> dict[str, str]:
    """A worker's key settings, with keys made in ``folder``."""
    platform = write_key_pair(folder / "platform")
    write_key_pair(folder / "host")
    return {
        "ARENA_PLATFORM_KEY": platform,
        "ARENA_HOST_KEY_FILE": str(folder / "host"),
        "ARENA_HOST_NAME": "arena-1",
    }


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
        (
            {"REDIS_URL": "redis://127.0.0.1:9/0", "ARENA_ENGINE_WATCH_SECONDS": "0"},
            "ARENA_ENGINE_WATCH_SECONDS='0': a positive number of seconds",
        ),
        (
            {"REDIS_URL": "redis://127.0.0.1:9/0", "ARENA_ENGINE_WATCH_SECONDS": "nan"},
            "ARENA_ENGINE_WATCH_SECONDS='nan'",
        ),
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


def test_a_runtime_the_engine_does_not_know_stops_the_worker_naming_it(tmp_path: Path) -> None:
    require_sandbox()
    env = {
        "PATH": "/usr/bin:/bin",
        "REDIS_URL": "redis://127.0.0.1:9/0",  # never reached: the check comes first
        "CUCUMBERS_SANDBOX_RUNTIME": "kata-nowhere",
        **worker_keys_env(tmp_path),
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


@pytest.mark.parametrize(
    ("drop", "named"),
    [
        ("ARENA_PLATFORM_KEY", "ARENA_PLATFORM_KEY (or ARENA_PLATFORM_KEY_FILE) is not set"),
        ("ARENA_HOST_NAME", "ARENA_HOST_NAME is not set"),
        ("ARENA_HOST_KEY_FILE", "ARENA_HOST_KEY_FILE is not set"),
    ],
)
def test_a_worker_without_its_keys_does_not_start(tmp_path: Path, drop: str, named: str) -> None:
    env = {"PATH": "/usr/bin:/bin", "REDIS_URL": "redis://127.0.0.1:9/0"}
    env |= {k: v for k, v in worker_keys_env(tmp_path).items() if k != drop}
    result = subprocess.run(
        [sys.executable, "-m", "arena", "worker", "--sandbox", "process"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert named in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"ARENA_HOST_KEY_FILE": "/nonexistent/key"}, "ARENA_HOST_KEY_FILE: cannot read"),
        ({"ARENA_PLATFORM_KEY": "ed25519:short"}, "ARENA_PLATFORM_KEY: a public key is 32"),
        ({"ARENA_PLATFORM_KEY_FILE": "/nonexistent"}, "both set"),
    ],
)
def test_unusable_keys_are_named(tmp_path: Path, change: dict[str, str], named: str) -> None:
    with pytest.raises(WorkerKeysError, match=named):
        WorkerKeys.from_env(worker_keys_env(tmp_path) | change)


class Recorder:
    """Stands in for play_job and send_back: what the worker would have played and sent."""

    def __init__(self) -> None:
        self.played: list[MatchJob] = []
        self.sent: list[tuple[str, Purpose, str]] = []

    def play_job(self, job: MatchJob, *args: object) -> MatchReport:
        self.played.append(job)
        return MatchReport(
            match=job.match,
            attempt=job.attempt,
            worker="w",
            sandbox="process",
            status=ReportStatus.INFRASTRUCTURE_ERROR,
            reason="not played in this test",
        )

    def send_back(self, task: str, purpose: Purpose, body: str) -> None:
        self.sent.append((task, purpose, body))


@pytest.fixture
def worker_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Signer, Recorder]:
    """A worker configured with keys (the platform's signer returned) and a recorder."""
    platform = Signer(PLATFORM_SIGNER, generate_key())
    write_key_pair(tmp_path / "host")
    keys = WorkerKeys.from_env(
        {
            "ARENA_PLATFORM_KEY": platform.public,
            "ARENA_HOST_KEY_FILE": str(tmp_path / "host"),
            "ARENA_HOST_NAME": "arena-1",
        }
    )
    monkeypatch.setattr(arena.worker, "_config", WorkerConfig("w", "process", keys=keys))
    recorder = Recorder()
    monkeypatch.setattr(arena.worker, "play_job", recorder.play_job)
    monkeypatch.setattr(arena.worker, "send_back", recorder.send_back)
    return platform, recorder


def a_job_text() -> str:
    source = "def play(view):\n    return view.legal[0]\n"
    return dump(
        MatchJob(
            match=5,
            attempt=uuid.uuid4(),
            kind=MatchKind.LADDER,
            game="five-cucumbers",
            seed=1,
            games=1,
            limits=JobLimits(move_seconds=1.0, bank_seconds=1.0, startup_seconds=5.0),
            seats=(
                JobSeat(
                    name="ann/a",
                    source=source,
                    sha256=hashlib.sha256(source.encode()).hexdigest(),
                ),
                JobSeat(name="builtin:lowest", builtin="lowest"),
            ),
        )
    )


def rewritten_source(job_text: str) -> str:
    """The job with its first seat's source replaced, its SHA-256 recomputed: what a
    writer to the broker can do without the platform's key."""
    raw = json.loads(job_text)
    evil = "import os\ndef play(view):\n    os._exit(1)\n"
    raw["seats"][0] |= {"source": evil, "sha256": hashlib.sha256(evil.encode()).hexdigest()}
    return json.dumps(raw)


def test_a_signed_job_is_played_and_its_messages_are_signed_by_the_host(
    worker_keys: tuple[Signer, Recorder], caplog: pytest.LogCaptureFixture
) -> None:
    platform, recorder = worker_keys
    assert arena.worker.play(platform.seal(Purpose.JOB, a_job_text())) == "infrastructure_error"
    assert [job.match for job in recorder.played] == [5]
    assert [purpose for _, purpose, _ in recorder.sent] == [Purpose.STARTED, Purpose.REPORT]


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda platform, text: text, id="unsigned"),
        pytest.param(
            lambda platform, text: Signer(PLATFORM_SIGNER, generate_key()).seal(Purpose.JOB, text),
            id="another-platforms-key",
        ),
        pytest.param(
            lambda platform, text: platform.seal(Purpose.REPORT, text), id="not-for-a-job"
        ),
        pytest.param(
            lambda platform, text: json.dumps(
                json.loads(platform.seal(Purpose.JOB, text)) | {"body": rewritten_source(text)}
            ),
            id="source-rewritten-with-its-sha256",
        ),
    ],
)
def test_a_job_the_platform_did_not_sign_is_refused_never_played_and_never_answered(
    worker_keys: tuple[Signer, Recorder],
    caplog: pytest.LogCaptureFixture,
    forge: Callable[[Signer, str], str],
) -> None:
    platform, recorder = worker_keys
    with caplog.at_level(logging.ERROR, logger="arena.worker"):
        assert arena.worker.play(forge(platform, a_job_text())) == "refused"
    assert recorder.played == [] and recorder.sent == []
    (record,) = [r for r in caplog.records if r.name == "arena.worker"]
    assert record.levelno == logging.ERROR and "refused a job" in record.getMessage()


def test_a_signed_job_the_worker_cannot_read_is_answered_with_an_infrastructure_error(
    worker_keys: tuple[Signer, Recorder],
) -> None:
    platform, recorder = worker_keys
    attempt = str(uuid.uuid4())
    newer = json.dumps({"schema": "cucumbers-match-job/2", "match": 7, "attempt": attempt})
    assert arena.worker.play(platform.seal(Purpose.JOB, newer)) == "refused"
    assert recorder.played == []
    ((_, purpose, body),) = recorder.sent
    assert purpose is Purpose.REPORT and json.loads(body)["status"] == "infrastructure_error"
