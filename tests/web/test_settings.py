"""Settings from the environment: helpers that fail loudly, safe production defaults."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from web.env import ImproperlyConfiguredEnv, envbool, envchoice, envint, envlist

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("raw", "value"),
    [("1", True), ("yes", True), ("ON", True), ("0", False), ("false", False), ("", False)],
)
def test_envbool_reads_the_usual_spellings(
    raw: str, value: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("X_FLAG", raw)
    assert envbool("X_FLAG", not value) is value


def test_envbool_and_envint_refuse_nonsense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("X_FLAG", "maybe")
    monkeypatch.setenv("X_NUM", "12kb")
    with pytest.raises(ImproperlyConfiguredEnv, match="X_FLAG"):
        envbool("X_FLAG", False)
    with pytest.raises(ImproperlyConfiguredEnv, match="not a whole number"):
        envint("X_NUM", 1)
    monkeypatch.setenv("X_NUM", "-3")
    with pytest.raises(ImproperlyConfiguredEnv, match="at least 0"):
        envint("X_NUM", 1)


def test_list_settings_drop_blanks_and_choice_settings_refuse_an_unknown_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("X_LIST", " a.org, ,b.org ")
    assert envlist("X_LIST", []) == ["a.org", "b.org"]
    assert envlist("X_UNSET_LIST", ["d"]) == ["d"]
    monkeypatch.setenv("X_CHOICE", "docker")
    assert envchoice("X_CHOICE", "auto", ("auto", "docker")) == "docker"
    monkeypatch.setenv("X_CHOICE", "vm")
    with pytest.raises(ImproperlyConfiguredEnv, match="choose one of"):
        envchoice("X_CHOICE", "auto", ("auto", "docker"))


def scrubbed_environment() -> dict[str, str]:
    """This process's environment without the settings the test suite sets."""
    scrub = {"DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "SANDBOX", "SECURE_SSL_REDIRECT"}
    scrub |= {"CACHE_URL"}
    scrub |= {"DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE", "ARENA_SIGNING_KEY_FILE"}
    clean = {k: v for k, v in os.environ.items() if k not in scrub}
    return {**clean, "PYTHONPATH": str(REPO / "platform")}


def run_probe(probe: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**scrubbed_environment(), **env},
    )


def load_settings(**env: str) -> subprocess.CompletedProcess[str]:
    probe = (
        "import web.settings as s; print(s.DEBUG, s.SESSION_COOKIE_SECURE,"
        " s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL)"
    )
    return run_probe(probe, **env)


def test_production_needs_a_secret_key(tmp_path: Path) -> None:
    result = load_settings(DATA_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "SECRET_KEY is required when DEBUG is off" in result.stderr


def test_production_defaults_are_safe(tmp_path: Path) -> None:
    result = load_settings(SECRET_KEY="s", DATA_DIR=str(tmp_path))
    assert result.stdout.split() == ["False", "True", "django.db.backends.sqlite3", "filesystem://"]


def test_production_speaks_https_only_by_default(tmp_path: Path) -> None:
    probe = "import web.settings as s; print(s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS)"
    production = run_probe(probe, SECRET_KEY="s", DATA_DIR=str(tmp_path))
    assert production.stdout.split() == ["True", str(365 * 24 * 3600)]
    local = run_probe(probe, DEBUG="1", DATA_DIR=str(tmp_path))
    assert local.stdout.split() == ["False", "0"]


@pytest.mark.parametrize(
    "cache", [{}, {"CACHE_URL": "redis://site:pw@127.0.0.1:6379/1"}], ids=["memory", "redis"]
)
def test_production_settings_pass_djangos_deploy_check(
    tmp_path: Path, cache: dict[str, str]
) -> None:
    """``manage.py check --deploy`` with the production example's values finds nothing but
    the two choices left to the operator on purpose: HSTS for subdomains (they may be other
    people's sites) and the browsers' preload list (hard to leave). With the cache in
    Redis or in memory alike: django-ratelimit's checks follow ``CACHE_URL``."""
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "ERROR"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={
            **scrubbed_environment(),
            "SECRET_KEY": "x" * 20 + "-a-long-random-production-secret-key-0123456789",
            "DATA_DIR": str(tmp_path),
            "ALLOWED_HOSTS": "arena.example.org",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
            **cache,
        },
    )
    assert result.returncode == 0, result.stderr
    found = set(re.findall(r"\(([a-z_.]+\.[WE]\d+)\)", result.stderr + result.stdout))
    assert found == {"security.W005", "security.W021"}, result.stderr


def test_database_and_redis_urls_switch_the_backends(tmp_path: Path) -> None:
    result = load_settings(
        SECRET_KEY="s",
        DATA_DIR=str(tmp_path),
        DATABASE_URL="postgres://u:p@db:5432/x",
        REDIS_URL="redis://cache:6379/0",
    )
    assert result.stdout.split()[2:] == ["django.db.backends.postgresql", "redis://cache:6379/0"]


def test_a_malformed_flag_stops_the_start(tmp_path: Path) -> None:
    result = load_settings(DEBUG="sometimes", DATA_DIR=str(tmp_path))
    assert "DEBUG='sometimes'" in result.stderr


def test_a_k_floor_above_the_established_k_stops_the_start(tmp_path: Path) -> None:
    result = load_settings(DEBUG="1", DATA_DIR=str(tmp_path), ELO_K="8", ELO_MIN_K="12")
    assert result.returncode != 0
    assert "ELO_MIN_K (12) must not exceed ELO_K (8)" in result.stderr


TIME_LIMITS_PROBE = (
    "import web.settings as s; print(s.MATCH_GAMES, s.CELERY_TASK_SOFT_TIME_LIMIT,"
    " s.CELERY_TASK_TIME_LIMIT, s.MATCH_LEASE_SECONDS)"
)


@pytest.mark.parametrize(
    ("games", "limits"),
    [("", "20 1200 1260 1320"), ("40", "40 2400 2460 2520"), ("2", "2 300 360 420")],
)
def test_a_matchs_time_limits_and_lease_follow_its_length(
    tmp_path: Path, games: str, limits: str
) -> None:
    env = {"MATCH_GAMES": games} if games else {}
    result = run_probe(TIME_LIMITS_PROBE, DEBUG="1", DATA_DIR=str(tmp_path), **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == limits.split()


def test_a_match_longer_than_a_job_holds_stops_the_start(tmp_path: Path) -> None:
    result = load_settings(DEBUG="1", DATA_DIR=str(tmp_path), MATCH_GAMES="201")
    assert result.returncode != 0
    assert "MATCH_GAMES (201) is more than a job holds (200)" in result.stderr


def test_the_test_suite_runs_on_postgresql() -> None:
    from django.conf import settings

    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"


# --- The site's cache: never the broker (issue 25) -----------------------------------------

CACHE_PROBE = (
    "import json, web.settings as s; c = s.CACHES['default'];"
    " print(json.dumps([c['BACKEND'], c.get('LOCATION'), c['KEY_PREFIX'],"
    " c.get('OPTIONS', {}).get('serializer'), s.SILENCED_SYSTEM_CHECKS]))"
)


def cache_settings(tmp_path: Path, **env: str) -> list[object]:
    result = run_probe(CACHE_PROBE, SECRET_KEY="s", DATA_DIR=str(tmp_path), **env)
    assert result.returncode == 0, result.stderr
    loaded: list[object] = json.loads(result.stdout)
    return loaded


def test_the_broker_is_never_the_cache(tmp_path: Path) -> None:
    memory = cache_settings(tmp_path, REDIS_URL="redis://redis:6379/0")
    assert memory[:4] == ["django.core.cache.backends.locmem.LocMemCache", None, "cache", None]
    # Local memory is not shared between processes: django-ratelimit would say so.
    assert memory[4] == ["django_ratelimit.W001", "django_ratelimit.E003"]


def test_cache_url_puts_the_cache_in_its_own_redis_database_as_json(tmp_path: Path) -> None:
    url = "redis://site:pw@redis:6379/1"
    assert cache_settings(tmp_path, REDIS_URL="redis://redis:6379/0", CACHE_URL=url) == [
        "django.core.cache.backends.redis.RedisCache",
        url,
        "cache",
        "web.cache_backend.JsonSerializer",
        ["django_ratelimit.W001"],
    ]
    # Without a broker URL (make run's filesystem broker) there is nothing to collide with.
    assert cache_settings(tmp_path, CACHE_URL=url)[0] == (
        "django.core.cache.backends.redis.RedisCache"
    )


@pytest.mark.parametrize(
    ("broker", "cache"),
    [
        ("redis://redis:6379/0", "redis://redis:6379/0"),
        # The same server and database, spelled otherwise: another user, the default port,
        # the default database, the database as a parameter, TLS, the host's case.
        ("redis://:broker-pw@redis:6379/0", "redis://site:s3cret@redis/0"),
        ("redis://redis:6379/0", "redis://redis:6379"),
        ("rediss://:broker-pw@Broker.example:6380/2", "rediss://broker.example:6380?db=2"),
        ("unix:///run/redis.sock?db=1", "unix:///run/redis.sock?db=1"),
        # One of several cache servers (read replicas) is the broker's database.
        ("redis://redis:6379/0", "redis://replica:6379/1,redis://redis:6379/0"),
    ],
)
def test_a_cache_in_the_brokers_database_stops_the_start(
    tmp_path: Path, broker: str, cache: str
) -> None:
    result = run_probe(
        CACHE_PROBE, SECRET_KEY="s", DATA_DIR=str(tmp_path), REDIS_URL=broker, CACHE_URL=cache
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured: CACHE_URL names the broker's Redis database" in result.stderr
    assert "s3cret" not in result.stderr and "broker-pw" not in result.stderr


@pytest.mark.parametrize(
    ("broker", "cache"),
    [
        ("redis://redis:6379/0", "redis://redis:6379/1"),
        ("redis://redis:6379/0", "redis://cache:6379/0"),
        ("redis://redis:6379/0", "redis://redis:6380/0"),
    ],
)
def test_another_database_or_server_is_accepted(tmp_path: Path, broker: str, cache: str) -> None:
    assert cache_settings(tmp_path, REDIS_URL=broker, CACHE_URL=cache)[1] == cache


def test_a_cache_url_that_is_not_redis_stops_the_start(tmp_path: Path) -> None:
    result = run_probe(
        CACHE_PROBE, SECRET_KEY="s", DATA_DIR=str(tmp_path), CACHE_URL="memcached://pw@m:11211"
    )
    assert result.returncode != 0
    assert "ImproperlyConfigured: CACHE_URL is not a Redis URL" in result.stderr
