"""The production deployment: docker-compose.yml, the platform's image, gunicorn's settings,
the settings example, and the storage selection (S3 when ``S3_BUCKET`` is set).

No image can be pulled here, so the files are checked statically, and by ``docker compose
config`` (or Debian's ``docker-compose``) when one is installed."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "deploy" / "web.Dockerfile"
ENV_EXAMPLE = REPO / "deploy" / "production.env.example"
SETTINGS = REPO / "platform" / "web" / "settings.py"
ARENA_ENV_EXAMPLE = REPO / "deploy" / "arena-worker.env.example"
#: The services that run platform code (Django, the database, the data volume).
PLATFORM_SERVICES = {"migrate", "web", "beat"}
SECRETS = {
    "SECRET_KEY",
    "POSTGRES_PASSWORD",
    "S3_ACCESS_KEY_ID",
    "S3_SECRET_ACCESS_KEY",
    "EMAIL_HOST_PASSWORD",
}


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def env_example() -> dict[str, str]:
    """Every ``NAME=value`` of the example, set or shown commented out (``# NAME=value``)."""
    found = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        match = re.fullmatch(r"#?\s*([A-Z][A-Z0-9_]*)=(\S*).*", line.strip())
        if match:
            found[match[1]] = match[2]
    return found


def test_compose_runs_the_whole_stack_with_health_checks() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "worker"} | PLATFORM_SERVICES
    for name in ("postgres", "redis", "web", "worker"):
        assert services[name]["healthcheck"]["test"], name
    for name in ("web", "beat"):
        # New code never serves or works before the schema is migrated.
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "gunicorn -c deploy/gunicorn.conf.py web.wsgi" in " ".join(services["web"]["command"])
    # Arena workers play matches (urgent before ladder, their default); the platform's own
    # worker with the scheduler (-B) records reports before it runs the periodic jobs.
    assert "exec python -m arena worker" in " ".join(services["worker"]["command"])
    beat = services["beat"]["command"]
    assert beat[:4] == ["celery", "-A", "web", "worker"] and "-B" in beat
    assert beat[beat.index("-Q") + 1] == "reports,maintenance"
    # Published on the loopback only: a TLS proxy goes in front.
    assert all(port.startswith("127.0.0.1:") for port in services["web"]["ports"])


def test_only_the_worker_gets_the_docker_socket_and_shares_its_staging_path() -> None:
    services = compose()["services"]
    socket = "/var/run/docker.sock:/var/run/docker.sock"
    for name, service in services.items():
        assert (socket in service.get("volumes", [])) == (name == "worker"), name
    worker = services["worker"]
    staging = worker["environment"]["CUCUMBERS_SANDBOX_STAGING_DIR"]
    # The engine mounts staged bot files by their host path: same path on both sides.
    assert f"{staging}:{staging}" in worker["volumes"]


def test_the_arena_worker_gets_nothing_of_the_platforms() -> None:
    worker = compose()["services"]["worker"]
    # No platform settings file, no data volume: it needs the broker and an engine only.
    assert worker["env_file"] == "${ARENA_WORKER_ENV_FILE:-deploy/arena-worker.env}"
    assert not any(volume.startswith("arena-data") for volume in worker["volumes"])
    assert set(worker["environment"]) == {"CUCUMBERS_SANDBOX_STAGING_DIR"}
    assert set(worker["depends_on"]) == {"redis"}
    example = ARENA_ENV_EXAMPLE.read_text()
    assert re.search(r"^REDIS_URL=redis://redis:6379/0$", example, re.MULTILINE)
    for name in SECRETS | {"DATABASE_URL", "DATA_DIR", "S3_BUCKET"}:
        assert not re.search(rf"^#?\s*{name}=", example, re.MULTILINE), name
    # Every variable the example shows is one the worker reads.
    from arena.worker import WORKER_VARIABLES

    shown = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", example, re.MULTILINE))
    readable = set(WORKER_VARIABLES) | {"WORKER_CONCURRENCY"}
    assert {n for n in shown if not n.startswith("CUCUMBERS_SANDBOX_")} <= readable


def test_platform_services_share_data_and_named_volumes_exist() -> None:
    spec = compose()
    for name in PLATFORM_SERVICES:
        assert "arena-data:/data" in spec["services"][name]["volumes"], name
    assert {"postgres-data", "redis-data", "arena-data"} <= set(spec["volumes"])


def test_no_secret_has_a_value_in_the_committed_files() -> None:
    example = env_example()
    for name in SECRETS:
        assert example.get(name, "") == "", f"{name} must be left empty in the example"
    assert re.fullmatch(r"postgres://\w+:@postgres:5432/\w+", example["DATABASE_URL"])
    # The compose file takes its settings from the env file, never inline secrets.
    text = COMPOSE.read_text()
    for name in SECRETS | {"DATABASE_URL"}:
        assert not re.search(rf"^\s*{name}\s*[:=]", text, re.MULTILINE), name


def test_the_example_lists_every_setting() -> None:
    names = set(
        re.findall(r'env(?:str|bool|int|list|choice)\("([A-Z0-9_]+)"', SETTINGS.read_text())
    )
    assert len(names) > 30  # the pattern still finds the settings
    gunicorn = set(
        re.findall(r'os\.environ\.get\("([A-Z_]+)"', (REPO / "deploy/gunicorn.conf.py").read_text())
    )
    missing = (names | gunicorn) - set(env_example())
    assert not missing, f"deploy/production.env.example lacks {sorted(missing)}"


def test_the_dockerfile_builds_the_platform_image() -> None:
    text = DOCKERFILE.read_text()
    instructions = [
        line.split()[0]
        for line in re.sub(r"\\\n", " ", text).splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    known = {"ARG", "FROM", "ENV", "COPY", "RUN", "WORKDIR", "USER", "EXPOSE", "CMD"}
    assert set(instructions) <= known, set(instructions) - known
    assert instructions[0] == "ARG"
    assert re.search(r"^ARG PYTHON_IMAGE=python:3\.1[1-9]", text, re.MULTILINE)
    assert re.search(r"^FROM \$\{PYTHON_IMAGE\}$", text, re.MULTILINE)
    assert re.search(r"^USER arena$", text, re.MULTILINE)  # never root
    for source in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.MULTILINE):
        for path in source.split():
            assert (REPO / path).exists(), f"COPY of a missing {path}"
    assert (REPO / "deploy" / "web.Dockerfile.dockerignore").exists()


def test_gunicorn_settings_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    values: dict[str, Any] = {}
    exec(
        compile((REPO / "deploy/gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"), values
    )
    assert values["workers"] == 3
    assert values["bind"] == "0.0.0.0:8000"
    assert values["worker_tmp_dir"] == "/dev/shm"


def test_compose_config_validates() -> None:
    if shutil.which("docker-compose"):
        command = ["docker-compose"]
    elif subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        command = ["docker", "compose"]
    else:
        message = "neither docker-compose nor the compose plugin is installed (make sandbox)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    result = subprocess.run(
        [*command, "-f", str(COMPOSE), "config", "-q"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "ARENA_ENV_FILE": str(ENV_EXAMPLE),
            "ARENA_WORKER_ENV_FILE": str(ARENA_ENV_EXAMPLE),
        },
    )
    assert result.returncode == 0, result.stderr


# --- storage selection -------------------------------------------------------------------


def storages_with(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The storages a fresh process builds from ``env``: class, bucket, prefix, privacy,
    and a signed URL (made locally by boto3, no request sent)."""
    probe = (
        "import django, json; django.setup()\n"
        "from django.core.files.storage import storages\n"
        "out = {}\n"
        "for alias in ('bot_sources', 'replays'):\n"
        "    s = storages[alias]\n"
        "    out[alias] = {'cls': type(s).__name__,"
        " 'bucket': getattr(s, 'bucket_name', None), 'location': str(s.location),"
        " 'acl': getattr(s, 'default_acl', None), 'overwrite': getattr(s, 'file_overwrite', None),"
        " 'url': s.url('x/1.py') if hasattr(s, 'bucket_name') else None}\n"
        "print(json.dumps(out))\n"
    )
    scrub = {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    base = {k: v for k, v in os.environ.items() if k not in scrub and not k.startswith("S3_")}
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={
            **base,
            "PYTHONPATH": str(REPO / "platform"),
            "DJANGO_SETTINGS_MODULE": "web.settings",
            "SECRET_KEY": "s",
            "DEBUG": "0",
            "DATA_DIR": str(tmp_path),
            **env,
        },
    )


def test_storages_default_to_private_local_folders(tmp_path: Path) -> None:
    result = storages_with(tmp_path)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["bot_sources"]["cls"] == found["replays"]["cls"] == "FileSystemStorage"
    assert found["bot_sources"]["location"] == str(tmp_path / "sources")
    assert found["replays"]["location"] == str(tmp_path / "replays")


def test_s3_bucket_switches_sources_and_replays_to_separate_private_s3_storages(
    tmp_path: Path,
) -> None:
    result = storages_with(
        tmp_path,
        S3_BUCKET="arena-files",
        S3_ENDPOINT_URL="http://127.0.0.1:9000",
        S3_REGION="us-east-1",
        S3_ACCESS_KEY_ID="test-key",
        S3_SECRET_ACCESS_KEY="test-secret",
    )
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    for alias, prefix in (("bot_sources", "sources"), ("replays", "replays")):
        storage = found[alias]
        assert storage["cls"] == "S3Storage"
        assert storage["bucket"] == "arena-files"
        assert storage["location"] == prefix  # separate keys: never one storage for both
        assert storage["acl"] == "private"
        assert storage["overwrite"] is False
        # A URL, should anything ask for one, is signed and expires: objects are not public.
        assert storage["url"].startswith(f"http://127.0.0.1:9000/arena-files/{prefix}/x/1.py?")
        assert "Signature" in storage["url"] or "X-Amz-Signature" in storage["url"]


def test_s3_prefixes_must_differ(tmp_path: Path) -> None:
    result = storages_with(
        tmp_path, S3_BUCKET="b", S3_SOURCES_PREFIX="files", S3_REPLAYS_PREFIX="files"
    )
    assert result.returncode != 0
    assert "S3_SOURCES_PREFIX and S3_REPLAYS_PREFIX must differ" in result.stderr
