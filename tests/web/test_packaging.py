"""The platform as it is installed: the lock (``uv.lock``, and its exports in
``requirements/`` that ``make install``, CI and every image install with hashes checked).

``make lock`` is the one way the lock changes; these tests fail when it was not run after
a change of ``pyproject.toml``, or when an export was edited by hand."""

from __future__ import annotations

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
    assert "--require-hashes -r requirements/platform.txt" in dockerfile
    offline = (REPO / "deploy" / "offline_images.py").read_text()
    assert '"--require-hashes"' in offline and '"requirements" / "platform.txt"' in offline
