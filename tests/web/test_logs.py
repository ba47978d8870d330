"""LOG_FORMAT=json: every log line of the platform is one JSON object with the time, the
level, the logger, the message and the fields of structured events; plain stays plain."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from arena.logs import AccessJsonFormatter, JsonFormatter, log_format
from web.pipeline.events import MatchEvent, log_event

REPO = Path(__file__).resolve().parents[2]

#: Logs one pipeline event and one warning with an exception after Django's set-up.
EMIT = """
import logging, django
django.setup()
from web.pipeline.events import MatchEvent, log_event
log_event(MatchEvent.RETRY, match=12, attempt=2, delay=7.5, reason="engine down")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("web.health").exception("readiness: the database does not answer")
"""


def emit(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH")
    return subprocess.run(
        [sys.executable, "-c", EMIT],
        cwd=REPO / "platform",
        capture_output=True,
        text=True,
        env={
            **{k: v for k, v in os.environ.items() if k in keep},
            "DJANGO_SETTINGS_MODULE": "web.settings",
            "SECRET_KEY": "s",
            "DATA_DIR": str(tmp_path),
            **env,
        },
        timeout=120,
    )


def test_a_pipeline_event_is_one_json_line_with_its_fields() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("web.pipeline.transitions")
    logger.addHandler(handler)
    try:
        log_event(MatchEvent.FINISHED, match=12, worker="arena@rack2", took=1.25)
    finally:
        logger.removeHandler(handler)
    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["level"] == "INFO"
    assert entry["logger"] == "web.pipeline.transitions"
    assert entry["message"] == "event=match.finished match=12 worker=arena@rack2 took=1.250"
    assert (entry["event"], entry["match"], entry["worker"], entry["took"]) == (
        "match.finished",
        12,
        "arena@rack2",
        1.25,
    )
    assert datetime.fromisoformat(entry["time"]).utcoffset() == timedelta(0)


def test_fields_never_hide_the_four_keys_of_every_line() -> None:
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "hello %s", ("you",), None)
    record.fields = {"message": "forged", "level": "DEBUG", "match": 3}
    entry = json.loads(JsonFormatter().format(record))
    assert (entry["message"], entry["level"], entry["match"]) == ("hello you", "WARNING", 3)


def test_the_settings_switch_every_line_to_json(tmp_path: Path) -> None:
    result = emit(tmp_path, LOG_FORMAT="json")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    event = next(e for e in lines if e["logger"] == "web.pipeline.transitions")
    assert event["event"] == "match.retry"
    assert (event["match"], event["attempt"], event["delay"]) == (12, 2, 7.5)
    assert event["reason"] == "engine down"
    failure = next(e for e in lines if e["logger"] == "web.health")
    assert failure["level"] == "ERROR"
    assert "ZeroDivisionError" in failure["exception"]


def test_plain_is_the_default_and_stays_as_it_was(tmp_path: Path) -> None:
    result = emit(tmp_path)
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stderr.splitlines() if "event=match.retry" in x)
    assert " INFO web.pipeline.transitions: event=match.retry match=12 attempt=2" in line
    with pytest.raises(json.JSONDecodeError):
        json.loads(line)


def test_an_unknown_log_format_stops_the_start(tmp_path: Path) -> None:
    result = emit(tmp_path, LOG_FORMAT="xml")
    assert result.returncode != 0
    assert "LOG_FORMAT" in result.stderr
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        log_format({"LOG_FORMAT": "yaml"})


def test_the_platform_worker_gives_celerys_handlers_the_json_formatter(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from web import celery

    logger = logging.getLogger("celery-handlers-under-test")
    logger.addHandler(logging.StreamHandler(io.StringIO()))
    monkeypatch.setenv("LOG_FORMAT", "plain")
    celery._json_lines(logger)
    assert not isinstance(logger.handlers[0].formatter, JsonFormatter)
    monkeypatch.setenv("LOG_FORMAT", "json")
    celery._json_lines(logger)
    assert isinstance(logger.handlers[0].formatter, JsonFormatter)


def gunicorn_settings(**env: str) -> dict[str, Any]:
    values: dict[str, Any] = {}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        text = (REPO / "deploy/gunicorn.conf.py").read_text()
        exec(compile(text, "gunicorn.conf.py", "exec"), values)
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return values


def test_gunicorns_access_log_is_json_with_the_requests_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gunicorn.config import Config
    from gunicorn.glogging import Logger

    assert "logconfig_dict" not in gunicorn_settings(LOG_FORMAT="plain")
    values = gunicorn_settings(LOG_FORMAT="json")
    config = Config()
    for name in ("logconfig_dict", "accesslog", "errorlog"):
        config.set(name, values[name])
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        log = Logger(config)  # gunicorn's own set-up: its defaults, then our dictConfig
        response = SimpleNamespace(status="200 OK", sent=512, headers=[])
        request = SimpleNamespace(headers=[("USER-AGENT", "probe/1")])
        environ = {
            "REQUEST_METHOD": "GET",
            "RAW_URI": "/leaderboard/?page=2",
            "PATH_INFO": "/leaderboard/",
            "QUERY_STRING": "page=2",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "10.0.0.9",
        }
        log.access(response, request, environ, timedelta(milliseconds=42))
        log.error("worker %s timed out", 7)
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    formatter = logging.getLogger("gunicorn.access").handlers[0].formatter
    for name in ("gunicorn.access", "gunicorn.error"):  # they wrote to capsys's streams
        logging.getLogger(name).handlers.clear()
    out, err = capsys.readouterr()
    access = json.loads(out.strip().splitlines()[-1])
    assert access["logger"] == "gunicorn.access"
    assert (access["method"], access["path"], access["query"]) == ("GET", "/leaderboard/", "page=2")
    assert (access["status"], access["bytes"], access["duration_ms"]) == (200, 512, 42)
    assert access["remote"] == "10.0.0.9"
    error = json.loads(err.strip().splitlines()[-1])
    assert (error["logger"], error["level"], error["message"]) == (
        "gunicorn.error",
        "ERROR",
        "worker 7 timed out",
    )
    assert isinstance(formatter, AccessJsonFormatter)
