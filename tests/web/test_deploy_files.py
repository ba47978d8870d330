"""The production deployment: docker-compose.yml, the arena host's compose file, the
platform's image and its offline stand-ins, gunicorn's settings, the settings examples, the
broker URL's password and TLS, and the storage selection (S3 when ``S3_BUCKET`` is set).

The files are checked statically here, and by ``docker compose config`` (or Debian's
``docker-compose``) when one is installed; ``make stack-check`` (minutes, not part of
``make test``) builds and runs them for real."""

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

from arena.broker import PLATFORM_QUEUES

REPO = Path(__file__).resolve().parents[2]
COMPOSE = REPO / "docker-compose.yml"
DOCKERFILE = REPO / "deploy" / "web.Dockerfile"
ENV_EXAMPLE = REPO / "deploy" / "production.env.example"
SETTINGS = REPO / "platform" / "web" / "settings.py"
ARENA_ENV_EXAMPLE = REPO / "deploy" / "arena-worker.env.example"
ARENA_HOST = REPO / "deploy" / "arena-host.yml"
OFFLINE = REPO / "deploy" / "offline"
PROXY = REPO / "deploy" / "proxy"
#: The services that run platform code (Django, the database, the data volume).
PLATFORM_SERVICES = {"migrate", "web", "platform", "beat"}
SECRETS = {
    "SECRET_KEY",
    "DEAL_KEY",
    "POSTGRES_PASSWORD",
    "S3_ACCESS_KEY_ID",
    "S3_SECRET_ACCESS_KEY",
    "EMAIL_HOST_PASSWORD",
}


def compose(path: Path = COMPOSE) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text())
    return loaded


def compose_command() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    message = "neither docker-compose nor the compose plugin is installed (make sandbox)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


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
    assert set(services) == {"postgres", "redis", "redis-acl", "worker", "proxy"} | (
        PLATFORM_SERVICES
    )
    for name in ("postgres", "redis", "web", "proxy", "worker", "platform"):
        assert services[name]["healthcheck"]["test"], name
    for name in ("web", "platform", "beat"):
        # New code never serves or works before the schema is migrated.
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "gunicorn -c deploy/gunicorn.conf.py web.wsgi" in " ".join(services["web"]["command"])
    # Arena workers play matches (urgent before ladder, their default); the platform's own
    # worker records reports before it runs the periodic jobs; the scheduler is a service of
    # its own (one at a time: its lock), never a worker's -B.
    assert "exec python -m arena worker" in " ".join(services["worker"]["command"])
    platform = services["platform"]["command"]
    assert platform[:4] == ["celery", "-A", "web", "worker"] and "-B" not in platform
    # No -Q: the worker serves the queues its app declares, in the broker's order.
    assert "-Q" not in platform
    from web.celery import app

    assert tuple(queue.name for queue in app.conf.task_queues) == PLATFORM_QUEUES
    assert services["beat"]["command"] == ["celery", "-A", "web", "beat", "--loglevel=INFO"]
    for name in ("web", "worker", "platform", "beat"):
        assert services[name]["restart"] == "unless-stopped", name
    # The proxy is the site's one way in, published on the loopback only (a TLS proxy goes
    # in front); gunicorn is published nowhere, and serves once web is healthy.
    assert services["proxy"]["ports"] == ["127.0.0.1:${WEB_PORT:-8000}:8080"]
    assert "ports" not in services["web"]
    assert services["proxy"]["depends_on"] == {"web": {"condition": "service_healthy"}}
    assert services["proxy"]["restart"] == "unless-stopped"


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
    # Its keys: the platform's public key and its own, from a volume of their own (migrate
    # makes them; never the data volume, where the platform's signing key lives).
    assert worker["environment"] == {
        "CUCUMBERS_SANDBOX_STAGING_DIR": "${ARENA_STAGING_DIR:-/var/lib/cucumbers-staging}",
        "ARENA_PLATFORM_KEY_FILE": "/keys/platform.pub",
        "ARENA_HOST_KEY_FILE": "/keys/host",
        "ARENA_HOST_NAME": "compose-worker",
    }
    assert "worker-keys:/keys:ro" in worker["volumes"]
    assert set(worker["depends_on"]) == {"redis", "migrate"}
    migrate = compose()["services"]["migrate"]
    assert "worker-keys:/keys" in migrate["volumes"]
    made = " ".join(migrate["command"])
    assert "python -m arena keygen --out /data/keys/platform" in made
    assert "python -m arena keygen --out /keys/host" in made
    assert "cp /data/keys/platform.pub /keys/platform.pub" in made
    assert "arena_host add compose-worker --public-key-file /keys/host.pub" in made
    example = ARENA_ENV_EXAMPLE.read_text()
    # As the arena's own Redis user, its password left empty (docs/security.md).
    assert re.search(r"^REDIS_URL=redis://arena:@redis:6379/0$", example, re.MULTILINE)
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
    # The platform's Redis user, its password left empty; the users' passwords too.
    assert example["REDIS_URL"] == "redis://platform:@redis:6379/0"
    for name in ("REDIS_PLATFORM_PASSWORD", "REDIS_ARENA_PASSWORD", "REDIS_CACHE_PASSWORD"):
        assert example[name] == "", name
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


def test_the_example_never_puts_the_sites_cache_in_the_brokers_database() -> None:
    """The cache is off the broker (issue 25): the example leaves CACHE_URL empty (each
    process's memory) and suggests a database and a Redis user of its own, which the
    settings accept beside the example's REDIS_URL; the platform's services read it from the
    env file, as every setting."""
    from web.cache_backend import site_caches

    text = ENV_EXAMPLE.read_text()
    assert env_example()["CACHE_URL"] == ""
    suggested = re.findall(r"^#\s+CACHE_URL=(\S+)$", text, re.MULTILINE)
    assert suggested == ["redis://cache:PASSWORD@redis:6379/1"]
    broker = env_example()["REDIS_URL"]
    cache = site_caches(suggested[0], broker_url=broker)["default"]
    assert cache["LOCATION"] == suggested[0] and cache["KEY_PREFIX"] == "cache"
    services = compose()["services"]
    for name in PLATFORM_SERVICES:
        assert services[name]["env_file"] == "${ARENA_ENV_FILE:-deploy/production.env}", name
    assert "CACHE_URL" not in COMPOSE.read_text()  # nothing inline overrides the env file


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
    assert re.search(r"^FROM \$\{PYTHON_IMAGE\}( AS \w+)?$", text, re.MULTILINE)
    assert re.search(r"^USER arena$", text, re.MULTILINE)  # never root
    for source in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.MULTILINE):
        for path in source.split():
            assert (REPO / path).exists(), f"COPY of a missing {path}"
    assert (REPO / "deploy" / "web.Dockerfile.dockerignore").exists()


def test_the_image_holds_everything_it_serves_made_at_build_time() -> None:
    """The platform and the SDK installed as wheels built from the tree (never editable),
    the SDK's wheel and the static files made by the build, in /app where the settings
    look: a container has nothing left to make before it serves."""
    text = DOCKERFILE.read_text()
    assert "pip install -e" not in text and " -e ." not in text
    assert "pip wheel --no-deps --no-build-isolation --wheel-dir /dist/sdk ./sdk" in text
    assert "pip wheel --no-deps --no-build-isolation --wheel-dir /dist/platform ." in text
    assert "pip install --no-deps /tmp/platform/*.whl ./sdk/cucumbers-*.whl" in text
    assert "django-admin collectstatic --noinput" in text
    env = dict(re.findall(r"^\s+(?:ENV )?([A-Z_]+)=(\S+?)(?: \\)?$", text, re.MULTILINE))
    assert env["STATIC_ROOT"] == "/app/static"
    assert env["SDK_WHEEL_DIR"] == "/app/sdk"
    assert env["DOCS_DIR"] == "/app/docs"
    assert env["CUCUMBERS_SANDBOX_RECIPE"] == "/app/deploy/sandbox"
    # The collected files and the wheel belong to root; the containers run as arena.
    assert text.index("collectstatic") < text.index("USER arena")


def test_containers_start_by_serving_on_a_read_only_tree() -> None:
    services = compose()["services"]
    assert services["web"]["command"] == ["gunicorn", "-c", "deploy/gunicorn.conf.py", "web.wsgi"]
    arena_host = compose(ARENA_HOST)["services"]["arena"]
    for name, service in [*services.items(), ("arena host", arena_host)]:
        command = " ".join(service.get("command", []))
        for work in ("collectstatic", "build_sdk", "pip "):
            assert work not in command, (name, work)
        if name in PLATFORM_SERVICES | {"worker", "arena host"}:
            assert service["read_only"] is True, name
            assert service["tmpfs"] == ["/tmp"], name


def test_the_gunicorn_settings_take_the_worker_count_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    values: dict[str, Any] = {}
    exec(
        compile((REPO / "deploy/gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"), values
    )
    assert values["workers"] == 3
    assert values["bind"] == "0.0.0.0:8000"
    assert values["worker_tmp_dir"] == "/dev/shm"


def compose_config(path: Path, **variables: str) -> subprocess.CompletedProcess[str]:
    command = compose_command()
    assert command is not None
    scrub = {"REDIS_URL", "ARENA_ENV_FILE", "ARENA_WORKER_ENV_FILE", "ARENA_PLATFORM_KEY"}
    scrub |= {"ARENA_HOST_NAME", "ARENA_KEYS_DIR"}
    return subprocess.run(
        [*command, "-p", "deploy-files-test", "-f", str(path), "config", "-q"],
        cwd=path.parent,
        capture_output=True,
        text=True,
        env={**{k: v for k, v in os.environ.items() if k not in scrub}, **variables},
    )


def test_docker_compose_accepts_the_compose_file_with_the_example_env_files() -> None:
    result = compose_config(
        COMPOSE, ARENA_ENV_FILE=str(ENV_EXAMPLE), ARENA_WORKER_ENV_FILE=str(ARENA_ENV_EXAMPLE)
    )
    assert result.returncode == 0, result.stderr


def test_the_arena_host_file_validates_and_insists_on_a_broker_url_and_its_keys() -> None:
    settings = {
        "REDIS_URL": "rediss://arena:secret@broker.example:6380/0",
        "ARENA_PLATFORM_KEY": "ed25519:AAAA",
        "ARENA_HOST_NAME": "rack2",
        "ARENA_KEYS_DIR": "/etc/cucumbers-keys",
    }
    given = compose_config(ARENA_HOST, **settings)
    assert given.returncode == 0, given.stderr
    for name, said in [
        ("REDIS_URL", "set REDIS_URL to the broker"),
        ("ARENA_PLATFORM_KEY", "set ARENA_PLATFORM_KEY"),
        ("ARENA_HOST_NAME", "set ARENA_HOST_NAME"),
        ("ARENA_KEYS_DIR", "set ARENA_KEYS_DIR"),
    ]:
        missing = compose_config(ARENA_HOST, **{k: v for k, v in settings.items() if k != name})
        assert missing.returncode != 0 and said in missing.stderr, name


# --- images: the registry's by default, offline stand-ins by build argument ----------------


def test_images_are_the_standard_ones_unless_compose_variables_say_otherwise() -> None:
    spec = compose()
    services = spec["services"]
    assert services["postgres"]["image"] == "${POSTGRES_IMAGE:-postgres:16}"
    assert services["redis"]["image"] == "${REDIS_IMAGE:-redis:7}"
    builds = [services[name]["build"] for name in ("web", "worker", "migrate", "platform", "beat")]
    builds.append(compose(ARENA_HOST)["services"]["arena"]["build"])
    for build in builds:
        assert build["dockerfile"] == "deploy/web.Dockerfile"
        assert build["args"] == {
            "PYTHON_IMAGE": "${PYTHON_IMAGE:-python:3.12-slim}",
            "DOCKER_CLI_IMAGE": "${DOCKER_CLI_IMAGE:-docker:27-cli}",
        }
    # Every service of platform code runs the one image, whose tag a variable can change.
    images = {services[name]["image"] for name in ("web", "worker", "migrate", "platform", "beat")}
    assert images == {"${WEB_IMAGE:-cucumber-arena-web:latest}"}
    assert compose(ARENA_HOST)["services"]["arena"]["image"] == images.pop()
    # The proxy: Debian's nginx on Debian's slim image, or on the offline Debian base.
    assert services["proxy"]["build"] == {
        "context": "deploy/proxy",
        "dockerfile": "Dockerfile",
        "args": {"DEBIAN_IMAGE": "${DEBIAN_IMAGE:-debian:bookworm-slim}"},
    }
    assert services["proxy"]["image"] == "${PROXY_IMAGE:-cucumber-arena-proxy:latest}"


def test_the_dockerfile_pulls_no_buildkit_frontend() -> None:
    # "# syntax=docker/dockerfile:1" makes BuildKit fetch its frontend from a registry.
    for path in (DOCKERFILE, PROXY / "Dockerfile"):
        assert not re.search(r"^#\s*syntax\s*=", path.read_text(), re.MULTILINE), path


def test_only_the_proxy_reaches_gunicorn_on_a_socket_of_their_own() -> None:
    """gunicorn listens on a Unix socket in a volume that web and the proxy mount and no
    other service: what gunicorn hears comes from the proxy, whose forwarded headers
    Django trusts (tests/web/test_proxy.py runs the proxy's file for real)."""
    spec = compose()
    services = spec["services"]
    web, proxy = services["web"], services["proxy"]
    assert web["environment"]["GUNICORN_BIND"] == "unix:/run/gunicorn/web.sock"
    assert web["environment"]["DATA_DIR"] == "/data"
    assert "web-socket" in spec["volumes"]
    for name, service in services.items():
        mounted = any(v.startswith("web-socket:") for v in service.get("volumes", []))
        assert mounted == (name in {"web", "proxy"}), name
    assert "web-socket:/run/gunicorn" in web["volumes"] and "arena-data:/data" in web["volumes"]
    assert (
        "upstream gunicorn {\n        server unix:/run/gunicorn/web.sock"
        in (PROXY / "nginx.conf").read_text()
    )
    # The image makes the socket's folder uid 1000's, so the empty volume takes that owner.
    assert "install -d -o arena -g arena /data /keys /run/gunicorn" in DOCKERFILE.read_text()
    # The proxy runs unprivileged on a read-only tree, its buffers in a tmpfs.
    assert proxy["read_only"] is True and proxy["tmpfs"] == ["/tmp"]
    assert proxy["healthcheck"]["test"][:2] == ["CMD", "curl"]
    recipe = (PROXY / "Dockerfile").read_text()
    assert re.search(r"^ARG DEBIAN_IMAGE=debian:bookworm-slim$", recipe, re.MULTILINE)
    assert re.search(r"^FROM \$\{DEBIAN_IMAGE\}$", recipe, re.MULTILINE)
    assert "apt-get install -y --no-install-recommends nginx-light curl" in recipe
    assert "COPY nginx.conf /etc/nginx/nginx.conf" in recipe
    assert re.search(r"^USER www-data$", recipe, re.MULTILINE)
    assert "RUN nginx -t" in recipe  # the file is checked when the image is built


def test_the_proxy_believes_forwarded_headers_from_this_hosts_addresses_only() -> None:
    conf = (PROXY / "nginx.conf").read_text()
    trusted = re.findall(r"^\s*set_real_ip_from (\S+);$", conf, re.MULTILINE)
    geo = re.search(r"geo \$realip_remote_addr \$from_this_host \{(.*?)\}", conf, re.DOTALL)
    assert geo is not None
    believed = re.findall(r"^\s*(\S+) 1;$", geo[1], re.MULTILINE)
    assert trusted == believed
    assert set(trusted) == {
        "127.0.0.0/8",
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "::1/128",
        "fc00::/7",
    }
    for buffering in ("proxy_request_buffering on;", "proxy_buffering on;"):
        assert buffering in conf


def test_offline_recipes_build_on_the_debian_base_with_the_official_contracts() -> None:
    recipes = sorted(OFFLINE.glob("*.Dockerfile"))
    assert {path.name for path in recipes} == {
        "python.Dockerfile",
        "postgres.Dockerfile",
        "redis.Dockerfile",
        "docker-cli.Dockerfile",
    }
    for path in recipes:
        text = path.read_text()
        assert re.search(r"^ARG DEBIAN_IMAGE=\S+$", text, re.MULTILINE), path.name
        assert re.search(r"^FROM \$\{DEBIAN_IMAGE\}", text, re.MULTILINE), path.name
    python = (OFFLINE / "python.Dockerfile").read_text()
    assert "PIP_NO_INDEX=1" in python and "PIP_FIND_LINKS=/opt/wheels" in python
    # What docker-compose.yml and web.Dockerfile expect of the images they replace.
    assert "PGDATA=/var/lib/postgresql/data" in (OFFLINE / "postgres.Dockerfile").read_text()
    entrypoint = OFFLINE / "postgres-entrypoint.sh"
    assert os.access(entrypoint, os.X_OK)
    for variable in ("POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"):
        assert variable in entrypoint.read_text()
    assert "WORKDIR /data" in (OFFLINE / "redis.Dockerfile").read_text()
    assert "/usr/local/bin/docker" in (OFFLINE / "docker-cli.Dockerfile").read_text()
    assert os.access(OFFLINE / "debian-base.sh", os.X_OK)


def test_offline_images_name_exactly_the_variables_compose_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(REPO / "deploy"))
    from offline_images import OfflineImages

    variables = OfflineImages("p", "d", "pg", "r").compose_variables()
    text = COMPOSE.read_text()
    for name in variables:
        assert "${" + name + ":-" in text, name


# --- the arena host and the broker --------------------------------------------------------


def test_the_arena_host_gets_the_broker_and_the_engine_and_nothing_else() -> None:
    spec = compose(ARENA_HOST)
    assert set(spec) == {"services"}  # no named volume, no network of its own
    (arena,) = spec["services"].values()
    assert set(arena["environment"]) == {
        "REDIS_URL",
        "CUCUMBERS_SANDBOX_STAGING_DIR",
        "ARENA_PLATFORM_KEY",
        "ARENA_HOST_NAME",
        "ARENA_HOST_KEY_FILE",
    }
    assert arena["environment"]["ARENA_HOST_KEY_FILE"] == "/keys/host"
    assert arena["env_file"] == "${ARENA_WORKER_ENV_FILE:-arena-worker.env.example}"
    staging = arena["environment"]["CUCUMBERS_SANDBOX_STAGING_DIR"]
    assert arena["volumes"] == [
        "/var/run/docker.sock:/var/run/docker.sock",
        f"{staging}:{staging}",
        "${ARENA_KEYS_DIR:?set ARENA_KEYS_DIR to the folder of this host's key}:/keys:ro",
    ]
    assert "ports" not in arena and "depends_on" not in arena
    text = ARENA_HOST.read_text()
    for name in SECRETS | {"DATABASE_URL", "DATA_DIR", "S3_BUCKET", "arena-data"}:
        assert name not in text, name
    command = " ".join(arena["command"])
    assert "exec python -m arena worker --name" in command
    assert "ARENA_HOST_NAME" in command and "ARENA_HOST_NAME" in arena["healthcheck"]["test"][1]


def test_redis_has_a_user_per_role_from_the_acl_file_compose_writes() -> None:
    services = compose()["services"]
    redis, acl = services["redis"], services["redis-acl"]
    command = redis["command"]
    assert command[command.index("--aclfile") + 1] == "/acl/users.acl"
    assert "--requirepass" not in command
    assert "redis-acl:/acl:ro" in redis["volumes"]
    assert redis["depends_on"]["redis-acl"]["condition"] == "service_completed_successfully"
    assert acl["command"] == ["python", "-m", "arena", "redis-acl", "--output", "/data/users.acl"]
    for user in ("PLATFORM", "ARENA", "CACHE"):
        name = f"REDIS_{user}_PASSWORD"
        assert acl["environment"][name] == "${" + name + ":-}"
    probe = redis["healthcheck"]["test"][1]
    assert "--user platform" in probe and "grep -q PONG" in probe  # NOAUTH is not healthy
    assert "ports" not in redis  # the compose network only
    assert {"redis-acl", "worker-keys"} <= set(compose()["volumes"])


@pytest.mark.parametrize(
    ("url", "password", "tls"),
    [
        ("redis://:s3cret@redis:6379/0", "s3cret", False),
        ("rediss://:s3cret@broker.example.org:6380/0?ssl_cert_reqs=required", "s3cret", True),
        ("rediss://rack2:s3cret@broker.example.org:6380/0?ssl_cert_reqs=required", "s3cret", True),
    ],
)
def test_the_broker_url_carries_a_password_and_checked_tls(
    url: str, password: str, tls: bool
) -> None:
    import ssl

    import kombu
    import redis

    from arena.broker import BrokerSettings, Role

    settings = BrokerSettings.from_env({"REDIS_URL": url}).celery(Role.ARENA)
    assert settings["broker_url"] == url  # handed to Celery whole, never re-assembled
    connection = kombu.Connection(settings["broker_url"])
    assert connection.password == password
    if tls:  # as the docs say to write it: the certificate is checked
        assert connection.ssl == {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    else:
        assert not connection.ssl
    # The site's cache (Django's RedisCache) hands CACHE_URL, given as such URLs are, whole
    # to redis-py, which reads the password and TLS from it alike.
    from web.cache_backend import site_caches

    location = site_caches(url, broker_url="redis://another-host:6379/0")["default"]["LOCATION"]
    assert location == url
    pool = redis.ConnectionPool.from_url(location)
    assert pool.connection_kwargs["password"] == password
    assert (pool.connection_class is redis.SSLConnection) is tls


def test_without_ssl_cert_reqs_the_broker_still_checks_the_certificate() -> None:
    # kombu's own default for rediss:// checks nothing; ours does, unless the URL says.
    import ssl

    import kombu

    from arena.broker import BrokerSettings, Role

    url = "rediss://:s3cret@broker.example.org:6380/0"
    assert kombu.Connection(url).ssl == {"ssl_cert_reqs": ssl.CERT_NONE}
    settings = BrokerSettings.from_env({"REDIS_URL": url}).celery(Role.ARENA)
    connection = kombu.Connection(settings["broker_url"], ssl=settings["broker_use_ssl"])
    assert connection.ssl == {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    plain = BrokerSettings.from_env({"REDIS_URL": "redis://redis:6379/0"}).celery(Role.ARENA)
    assert "broker_use_ssl" not in plain


# --- make stack-check ----------------------------------------------------------------------


def test_make_stack_check_is_its_own_target_outside_make_test() -> None:
    makefile = (REPO / "Makefile").read_text()
    assert re.search(
        r"^stack-check: install\n\t\$\(BIN\)/python deploy/stack_check.py"
        r" \$\(if \$\(FRESH\),--fresh\) \$\(if \$\(FROM\),--from \$\(FROM\)\)$",
        makefile,
        re.MULTILINE,
    )
    test_target = re.search(r"^test: (.*)$", makefile, re.MULTILINE)
    assert test_target is not None and "stack-check" not in test_target[1]
    assert "stack-check" in re.search(r"^\.PHONY: (.*)$", makefile, re.MULTILINE)[1]  # type: ignore[index]
    # CI runs it from nothing, after the suite.
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert ci.index("make stack-check FRESH=1") > ci.index("make test")


@pytest.mark.skipif(os.geteuid() != 0, reason="the staging folder is given to uid 1000")
def test_the_stack_checks_settings_are_fresh_private_and_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REPO / "deploy"))
    from stack_support import StackFiles

    made = [
        StackFiles.generate(tmp_path / name, 8123, {}, "/usr/bin/docker", "web:test", "proxy:test")
        for name in ("a", "b")
    ]
    platform = [(files.folder / "platform.env").read_text() for files in made]
    assert platform[0] != platform[1]  # new secrets each time
    for files in made:
        for name in ("platform.env", "arena-worker.env"):
            assert (files.folder / name).stat().st_mode & 0o077 == 0, name
        assert files.staging_dir.stat().st_uid == 1000
        passwords = files.redis_passwords
        arena_url = f"redis://arena:{passwords['arena']}@redis:6379/0"
        assert f"REDIS_URL={arena_url}" in (files.folder / "arena-worker.env").read_text()
        platform_env = (files.folder / "platform.env").read_text()
        assert f"REDIS_URL=redis://platform:{passwords['platform']}@redis:6379/0" in platform_env
        assert f"CACHE_URL=redis://cache:{passwords['cache']}@redis:6379/1" in platform_env
        assert "ARENA_SIGNING_KEY_FILE=/data/keys/platform" in platform_env
        for user in ("platform", "arena", "cache"):
            assert files.variables[f"REDIS_{user.upper()}_PASSWORD"] == passwords[user]
        host, public = files.arena_host("rack2", "ed25519:platform-key")
        assert host["REDIS_URL"] == arena_url
        assert host["ARENA_PLATFORM_KEY"] == "ed25519:platform-key"
        keys = Path(host["ARENA_KEYS_DIR"])
        assert (keys / "host.pub").read_text().strip() == public and public.startswith("ed25519:")
        assert (keys / "host").stat().st_mode & 0o077 == 0
        assert (keys / "host").stat().st_uid == 1000
        assert not {"ARENA_ENV_FILE", "ARENA_WORKER_ENV_FILE", "WEB_PORT"} & set(host)
        assert files.variables["PROXY_IMAGE"] == "proxy:test"
        assert "TRUSTED_PROXIES=1\n" in platform_env  # the stack's proxy names the client
        assert host["ARENA_STAGING_DIR"] != files.variables["ARENA_STAGING_DIR"]


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


def test_both_builders_get_the_same_build_context() -> None:
    """The classic builder reads .dockerignore, BuildKit the Dockerfile's own: one list."""

    def rules(path: Path) -> list[str]:
        lines = path.read_text().splitlines()
        return [line for line in lines if line.strip() and not line.startswith("#")]

    assert rules(REPO / ".dockerignore") == rules(REPO / "deploy/web.Dockerfile.dockerignore")
    assert "!docs/*.md" in rules(REPO / ".dockerignore")  # the site's documents


# --- the stack check's upgrade step ---------------------------------------------------------


def test_the_upgrade_starts_from_a_named_commit_or_is_skipped_with_a_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(REPO / "deploy"))
    from stack_support import StackCheckFailed
    from stack_upgrade import Release

    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    release, said = Release.find("HEAD")
    assert release == Release(head, "HEAD") and head[:12] in said
    assert Release.find("none") == (None, "upgrade step skipped (--from none)")
    with pytest.raises(StackCheckFailed, match="no such commit"):
        Release.find("no-such-release-anywhere")


def test_a_release_that_builds_the_sdk_at_start_starts_its_web_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(REPO / "deploy"))
    from stack_upgrade import release_overrides

    old = (
        "python manage.py collectstatic --noinput -v 0 && python manage.py build_sdk -v 0"
        " && exec gunicorn -c deploy/gunicorn.conf.py web.wsgi"
    )
    (tmp_path / "docker-compose.yml").write_text(
        yaml.safe_dump({"services": {"web": {"command": ["sh", "-c", old]}}})
    )
    overrides, why = release_overrides(tmp_path, tmp_path)
    assert "issue 26" in why
    web = yaml.safe_load(overrides[0].read_text())["services"]["web"]
    assert web["command"] == [
        "sh",
        "-c",
        "python manage.py collectstatic --noinput -v 0 && exec gunicorn -c"
        " deploy/gunicorn.conf.py web.wsgi",
    ]
    # This tree's web starts by serving: nothing to override.
    assert release_overrides(REPO, tmp_path) == ([], "")


def test_the_upgrade_comparison_names_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPO / "deploy"))
    from stack_upgrade import differences

    before = {
        "leaderboard": [("ann", "a", 1500.0, 3)],
        "replays": {7: {"download": "ab", "api": {}}},
    }
    assert differences(before, before) == []
    after = {
        "leaderboard": [("ann", "a", 1510.0, 3)],
        "replays": {7: {"download": "cd", "api": {}}},
    }
    changed = differences(before, after)
    assert changed[0].startswith("leaderboard: 1 -> 1 rows; ('ann', 'a', 1500.0, 3) -> ")
    assert changed[1] == "replays: differing keys [7]"
