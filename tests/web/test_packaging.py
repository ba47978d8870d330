"""The platform as it is installed: the lock (``uv.lock``, and its exports in
``requirements/`` that ``make install``, CI and every image install with hashes checked).

``make lock`` is the one way the lock changes; these tests fail when it was not run after
a change of ``pyproject.toml``, or when an export was edited by hand."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "uv.lock"
PLATFORM_TXT = REPO / "requirements" / "platform.txt"
DEV_TXT = REPO / "requirements" / "dev.txt"
#: The commands of the Makefile's lock target that write each export.
EXPORTS = {
    PLATFORM_TXT: ["--no-emit-project", "--hashes"],
    DEV_TXT: ["--no-emit-project", "--hashes", "--extra", "dev"],
}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(path: Path) -> dict[str, str]:
    """Name -> version of every requirement of an export; each must be ``==`` a version
    and carry at least one sha256 hash."""
    joined = re.sub(r"\s*\\\n\s*", " ", path.read_text())
    found = {}
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(
            r"([A-Za-z0-9._-]+)==(\S+)(?: ;[^-]+)?((?: --hash=sha256:[0-9a-f]{64})+)", line
        )
        assert match, f"{path.name}: not pinned with a hash: {line[:120]}"
        found[canonical(match[1])] = match[2]
    return found


def project() -> dict[str, list[str]]:
    spec = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return {"platform": spec["dependencies"], "dev": spec["optional-dependencies"]["dev"]}


def names(requirements: list[str]) -> set[str]:
    return {canonical(Requirement(line).name) for line in requirements}


def uv() -> str:
    found = shutil.which("uv", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail("uv is a dev dependency (requirements/dev.txt): make install")
    return found


def test_every_dependency_of_the_platform_and_its_tools_is_pinned_with_a_hash() -> None:
    platform, dev = pinned(PLATFORM_TXT), pinned(DEV_TXT)
    wanted = project()
    assert names(wanted["platform"]) <= set(platform)
    assert names(wanted["platform"]) | names(wanted["dev"]) <= set(dev)
    # The extras come along: celery[redis] needs redis, psycopg[binary] psycopg-binary.
    assert {"redis", "psycopg-binary", "boto3"} <= set(platform)
    # The SDK's wheel is built with these at image build time, offline.
    assert {"setuptools", "wheel"} <= set(platform)


def test_the_images_get_the_same_versions_and_no_dev_tool() -> None:
    platform, dev = pinned(PLATFORM_TXT), pinned(DEV_TXT)
    assert {name: dev.get(name) for name in platform} == platform
    for tool in ("pytest", "mypy", "ruff", "uv", "playwright", "hypothesis"):
        assert tool in dev and tool not in platform, tool


def test_the_sdk_stays_dependency_free() -> None:
    sdk = tomllib.loads((REPO / "sdk" / "pyproject.toml").read_text())["project"]
    assert sdk["dependencies"] == []
    locked = {package["name"] for package in tomllib.loads(LOCK.read_text())["package"]}
    assert "cucumbers" not in locked  # installed beside the platform, from sdk/


def test_the_lock_satisfies_pyproject() -> None:
    # --offline: the answer comes from uv.lock and pyproject.toml alone.
    result = subprocess.run(
        [uv(), "lock", "--check", "--offline"], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, f"uv.lock is stale: make lock\n{result.stderr[-2000:]}"


@pytest.mark.parametrize("export", sorted(EXPORTS), ids=lambda path: path.name)
def test_the_exports_are_exactly_the_lock(export: Path) -> None:
    result = subprocess.run(
        [uv(), "export", "--quiet", "--frozen", "--offline", *EXPORTS[export]],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr

    def body(text: str) -> list[str]:
        return [line for line in text.splitlines() if not line.startswith("#")]

    assert body(result.stdout) == body(export.read_text()), f"{export.name}: make lock"


def test_every_install_takes_the_lock_with_hashes() -> None:
    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"pip install .*--require-hashes -r requirements/dev\.txt$", makefile, re.M)
    # The projects themselves add nothing: no dependency resolved, no build isolation.
    assert "--no-deps --no-build-isolation -e ./sdk -e ." in makefile
    for lock_export in EXPORTS:
        assert f"-o {lock_export.relative_to(REPO)}" in makefile
    dockerfile = (REPO / "deploy" / "web.Dockerfile").read_text()
    assert "COPY requirements/platform.txt /tmp/requirements.txt" in dockerfile
    assert "pip install --require-hashes -r /tmp/requirements.txt" in dockerfile
    offline = (REPO / "deploy" / "offline_images.py").read_text()
    assert '"--require-hashes"' in offline and '"requirements" / "platform.txt"' in offline


# --- the platform as a wheel, installed where the tree is out of reach ----------------------

#: What deploy/web.Dockerfile copies to build the two wheels: nothing else goes in.
WHEEL_SOURCES = {
    "sdk": ["sdk/pyproject.toml", "sdk/README.md", "sdk/src"],
    "platform": ["pyproject.toml", "arena", "platform"],
}
#: What a page of the installed site must show (served, then read back by the probe).
PROBE = """
import json, pathlib, sys
import django
django.setup()
from django.core.management import call_command
call_command("migrate", "--noinput", verbosity=0)  # every app's migrations were packaged
call_command("collectstatic", "--noinput", verbosity=0)  # and every static file
from django.conf import settings
from django.test import Client
import arena, cucumbers, web
client = Client(HTTP_HOST="arena.example.org")
def get(path):
    response = client.get(path, secure=True)
    body = b"".join(response) if response.streaming else response.content
    return response.status_code, body
status, page = get("/getting-started/")
(wheel,) = pathlib.Path(settings.SDK_DIR).glob("cucumbers-*.whl")
served_status, served = get(f"/sdk/{wheel.name}")
rules_status, rules = get("/rules/")
print(json.dumps({
    "modules": [m.__file__ for m in (web, arena, cucumbers)],
    "getting_started": [status, f"/sdk/{wheel.name}" in page.decode()],
    "wheel": [served_status, served == wheel.read_bytes()],
    "rules": [rules_status, b"Five Cucumbers" in rules],
    "viewer": (pathlib.Path(settings.STATIC_ROOT) / "viewer").is_dir(),
}))
"""


def run(
    command: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout}{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv with the locked dependencies (hashes checked; pip's cache may
    serve them) and the two wheels built from a copy of this tree's sources, as the image
    builds them: no build isolation, the locked setuptools."""
    root = tmp_path_factory.mktemp("installed")
    for name, paths in WHEEL_SOURCES.items():
        for path in paths:
            source, copy = REPO / path, root / "src" / path
            if source.is_dir():
                shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, copy)
        project = root / "src" / ("sdk" if name == "sdk" else "")
        run(
            [
                *[sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"],
                *["--no-build-isolation", "--wheel-dir", str(root / "dist" / name), str(project)],
            ]
        )
    venv = root / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    run([*pip, "--require-hashes", "-r", str(PLATFORM_TXT)])
    run([*pip, "--no-deps", *map(str, sorted((root / "dist").glob("*/*.whl")))])
    shutil.rmtree(root / "src")
    return root


def outside_the_tree(root: Path) -> dict[str, str]:
    """The environment of a process that cannot see the checkout: no PYTHONPATH, the
    production settings, the image's layout of what it serves (copies, not the tree)."""
    shutil.copytree(REPO / "docs", root / "docs", dirs_exist_ok=True)
    return {
        # Nothing of this process's (the test suite's settings): the defaults, and these.
        **{k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ},
        "SECRET_KEY": "x" * 20 + "-a-long-random-production-secret-key-0123456789",
        "ALLOWED_HOSTS": "arena.example.org",
        "DATA_DIR": str(root / "data"),
        "STATIC_ROOT": str(root / "static"),
        "SDK_WHEEL_DIR": str(root / "dist" / "sdk"),
        "DOCS_DIR": str(root / "docs"),
    }


@pytest.mark.slow
def test_the_installed_wheel_passes_the_deploy_check_outside_the_tree(installed: Path) -> None:
    elsewhere = installed / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    env = outside_the_tree(installed)
    django_admin = str(installed / "venv" / "bin" / "django-admin")
    result = subprocess.run(
        [django_admin, "check", "--deploy", "--fail-level", "ERROR", "--settings", "web.settings"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    # The same two operator's choices as from the checkout (tests/web/test_settings.py).
    found = set(re.findall(r"\(([a-z_.]+\.[WE]\d+)\)", result.stderr + result.stdout))
    assert found == {"security.W005", "security.W021"}, result.stderr


@pytest.mark.slow
def test_the_installed_site_serves_its_pages_the_sdk_wheel_and_static_files(
    installed: Path,
) -> None:
    elsewhere = installed / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    env = {**outside_the_tree(installed), "DJANGO_SETTINGS_MODULE": "web.settings"}
    result = run([str(installed / "venv" / "bin" / "python"), "-c", PROBE], cwd=elsewhere, env=env)
    found = json.loads(result.stdout.splitlines()[-1])
    site_packages = str(installed / "venv" / "lib")
    for module in found["modules"]:
        assert module.startswith(site_packages) and not module.startswith(str(REPO)), module
    assert found["getting_started"] == [200, True]  # the page links the image's wheel
    assert found["wheel"] == [200, True]  # and serves that very file
    assert found["rules"] == [200, True]  # the documents, from DOCS_DIR
    assert found["viewer"]  # the replay viewer's files, from the SDK's package data
