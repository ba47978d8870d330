#!/usr/bin/env python3
"""The images docker-compose.yml needs, made on a Docker host that reaches no container
registry (``postgres:16``, ``redis:7``, ``python:3.12-slim`` and ``docker:27-cli`` cannot be
pulled there), from what such a host does reach: Debian's packages and PyPI.

- a Debian bookworm base from debootstrap (``deploy/offline/debian-base.sh``), once;
- on it, with Debian's packages (``deploy/offline/*.Dockerfile``): PostgreSQL 15 and Redis
  7.0 with the official images' contract, Debian's Docker client, and Python 3.11 with a
  wheelhouse of the locked dependencies (``requirements/platform.txt``, hashes checked)
  built here by ``pip wheel`` that later installs read with ``--no-index``. The
  wheels are resolved by a Python of this host of the image's exact version (on Debian 12,
  its own ``/usr/bin/python3``): dependencies carry markers such as ``python_full_version
  < "3.11.3"``, so another patch release could leave one out.

The same docker-compose.yml then builds and runs the stack, given the compose variables
this prints (``POSTGRES_IMAGE``, ``REDIS_IMAGE``, ``PYTHON_IMAGE``, ``DOCKER_CLI_IMAGE``, and
``DEBIAN_IMAGE``, the base the proxy's recipe installs Debian's nginx on)::

    python deploy/offline_images.py >> .env      # beside docker-compose.yml
    COMPOSE_DOCKER_CLI_BUILD=1 DOCKER_BUILDKIT=1 docker-compose up -d --build

Needs root (debootstrap), a Docker engine, the ``docker`` client that can build with
BuildKit (see :func:`buildkit_client`), and a Python with pip of the image's version.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RECIPES = REPO / "deploy" / "offline"
#: The platform's locked dependencies, with their hashes (``make lock`` writes it).
LOCKED = REPO / "requirements" / "platform.txt"
PREFIX = "cucumber-arena-offline"
DEBIAN_IMAGE = f"{PREFIX}/debian:bookworm"
#: Built wheels, one folder per set of inputs (the lock and the Python).
WHEEL_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cucumber-arena"
LABEL = "org.cucumber-arena.offline=1"


class OfflineImageError(RuntimeError):
    """An offline image could not be made; the message says which and why."""


@dataclass(frozen=True, slots=True)
class OfflineImages:
    """The local images that stand in for the registry's, as compose variables."""

    python: str
    docker_cli: str
    postgres: str
    redis: str

    def compose_variables(self) -> dict[str, str]:
        return {
            "PYTHON_IMAGE": self.python,
            "DOCKER_CLI_IMAGE": self.docker_cli,
            "POSTGRES_IMAGE": self.postgres,
            "REDIS_IMAGE": self.redis,
            # Debian 12's Redis: its ACL file must not name what 7.2 added.
            "REDIS_VERSION": "7.0",
            # The proxy installs Debian's nginx on it (deploy/proxy/Dockerfile), in place of
            # debian:bookworm-slim.
            "DEBIAN_IMAGE": DEBIAN_IMAGE,
        }


def buildkit_client() -> str:
    """The first ``docker`` client on ``PATH`` that builds with BuildKit: one with the buildx
    plugin, or one older than 23.0 (BuildKit built in, ``DOCKER_BUILDKIT=1``). Clients of
    23.0 and later without buildx refuse to build with BuildKit, and without BuildKit the
    per-Dockerfile ``.dockerignore`` of deploy/web.Dockerfile is not read."""
    seen: set[Path] = set()
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = Path(folder) / "docker"
        if not candidate.is_file() or candidate.resolve() in seen:
            continue
        seen.add(candidate.resolve())
        if _run_ok([str(candidate), "buildx", "version"]):
            return str(candidate)
        version = subprocess.run(
            [str(candidate), "version", "--format", "{{.Client.Version}}"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if version and version.split(".")[0].isdigit() and int(version.split(".")[0]) < 23:
            return str(candidate)
    raise OfflineImageError(
        "no docker client on PATH can build with BuildKit: install the buildx plugin"
        " (or Debian's docker.io, whose client has BuildKit built in)"
    )


def _run_ok(command: list[str]) -> bool:
    try:
        return subprocess.run(command, capture_output=True, check=False).returncode == 0
    except OSError:
        return False


def image_exists(docker: str, name: str) -> bool:
    return _run_ok([docker, "image", "inspect", name])


def image_python(docker: str, runtime: str) -> str:
    """The exact Python version of the image ``runtime`` (say ``3.11.2``)."""
    script = "import platform; print(platform.python_version())"
    result = subprocess.run(
        [docker, "run", "--rm", "--network", "none", runtime, "python3", "-c", script],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise OfflineImageError(f"cannot run Python in {runtime}: {result.stderr.strip()}")
    return result.stdout.strip()


def host_python(version: str) -> str:
    """A Python with pip on this host whose version is exactly ``version``."""
    short = ".".join(version.split(".")[:2])
    candidates = [sys.executable, "/usr/bin/python3", shutil.which(f"python{short}") or ""]
    script = "import platform, pip; print(platform.python_version())"
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", script], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return candidate
    raise OfflineImageError(
        f"the offline image runs Python {version}: no Python {version} with pip here"
        f" (tried {', '.join(filter(None, candidates))}) to build wheels whose markers match"
    )


def wheelhouse(
    version: str, log: Callable[[str], None], cache: Path = WHEEL_CACHE, pip_cache: bool = True
) -> Path:
    """Wheels of every locked dependency of the platform (``requirements/platform.txt``,
    exported from ``uv.lock``; the SDK has none, and the two projects themselves are built
    by the image from its sources) for Python ``version``, each checked against its hash in
    the lock; built once per input set into ``cache`` (without ``pip_cache``, every file
    comes from the index, none from pip's cache)."""
    python = host_python(version)
    digest = hashlib.sha256(version.encode())
    digest.update(LOCKED.read_bytes())
    folder = cache / f"wheels-{digest.hexdigest()[:16]}"
    if (folder / ".complete").exists():
        return folder
    log(f"building wheels for Python {version} with {python} into {folder}")
    cache.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="wheels-", dir=cache))
    try:
        result = subprocess.run(
            [
                *[python, "-m", "pip", "wheel", "--quiet", "--require-hashes"],
                *([] if pip_cache else ["--no-cache-dir"]),
                *["-w", str(scratch), "-r", str(LOCKED)],
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise OfflineImageError(f"pip wheel failed: {result.stderr.strip()[-2000:]}")
        (scratch / ".complete").touch()
        shutil.rmtree(folder, ignore_errors=True)
        scratch.rename(folder)  # complete or absent: never a half-filled wheelhouse
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return folder


def _build(
    docker: str, tag: str, dockerfile: str, context: Path, *options: str, fresh: bool = False
) -> None:
    command = [docker, "build", "--quiet", "--label", LABEL, "-t", tag, *options]
    command += ["--no-cache"] if fresh else []
    command += ["--build-arg", f"DEBIAN_IMAGE={DEBIAN_IMAGE}"]
    result = subprocess.run(
        [*command, "-f", str(RECIPES / dockerfile), str(context)],
        capture_output=True,
        text=True,
        env={**os.environ, "DOCKER_BUILDKIT": "1"},
        check=False,
    )
    if result.returncode != 0:
        raise OfflineImageError(f"building {tag} failed:\n{result.stderr.strip()[-3000:]}")


IMAGES = OfflineImages(
    python=f"{PREFIX}/python:bookworm",
    docker_cli=f"{PREFIX}/docker-cli:bookworm",
    postgres=f"{PREFIX}/postgres:bookworm",
    redis=f"{PREFIX}/redis:bookworm",
)
RUNTIME_IMAGE = f"{PREFIX}/python-runtime:bookworm"


def remove_offline_images(docker: str, log: Callable[[str], None] = print) -> None:
    """Remove the tags this module makes (the stand-ins, then the Debian base they are
    built on), never with force: an image a container uses stays, and is reported."""
    for tag in (*IMAGES.compose_variables().values(), RUNTIME_IMAGE, DEBIAN_IMAGE):
        result = subprocess.run(
            [docker, "image", "rm", tag], capture_output=True, text=True, check=False
        )
        if result.returncode == 0:
            log(f"removed {tag}")
        elif image_exists(docker, tag):
            log(f"kept {tag}, which a container uses: {result.stderr.strip()}")


def build_offline_images(
    docker: str | None = None, log: Callable[[str], None] = print, *, fresh: bool = False
) -> OfflineImages:
    """Make (or reuse) every offline image; Docker's build cache makes a repeat take
    seconds. ``fresh``: reuse nothing: the images removed first, Docker's build cache and
    pip's cache not read, the wheels built into a throwaway folder. Raises
    :class:`OfflineImageError`."""
    docker = docker or buildkit_client()
    if fresh:
        remove_offline_images(docker, log)
    if not image_exists(docker, DEBIAN_IMAGE):
        log(f"building {DEBIAN_IMAGE} with debootstrap (about a minute)")
        started = time.monotonic()
        result = subprocess.run(
            ["bash", str(RECIPES / "debian-base.sh"), DEBIAN_IMAGE],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            raise OfflineImageError(f"debootstrap base: {result.stderr.strip()[-2000:]}")
        log(f"{DEBIAN_IMAGE} built in {time.monotonic() - started:.0f} s")
    images = IMAGES
    _build(docker, RUNTIME_IMAGE, "python.Dockerfile", RECIPES, "--target", "runtime", fresh=fresh)
    version = image_python(docker, RUNTIME_IMAGE)
    with tempfile.TemporaryDirectory(prefix="cucumber-arena-wheels-") as throwaway:
        cache = Path(throwaway) if fresh else WHEEL_CACHE
        wheels = wheelhouse(version, log, cache, pip_cache=not fresh)
        # Never --no-cache here: its runtime stage is the image just built above (fresh
        # or not), which a second build would only repeat, leaving the first untagged.
        _build(docker, images.python, "python.Dockerfile", wheels)
    for tag, recipe in (
        (images.docker_cli, "docker-cli.Dockerfile"),
        (images.postgres, "postgres.Dockerfile"),
        (images.redis, "redis.Dockerfile"),
    ):
        _build(docker, tag, recipe, RECIPES, fresh=fresh)
    return images


def dotenv_lines(variables: Mapping[str, str]) -> str:
    return "".join(f"{name}={value}\n" for name, value in variables.items())


def main() -> int:
    try:
        images = build_offline_images(log=lambda line: print(line, file=sys.stderr))
    except OfflineImageError as error:
        print(f"offline_images: error: {error}", file=sys.stderr)
        return 1
    sys.stdout.write(dotenv_lines(images.compose_variables()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
