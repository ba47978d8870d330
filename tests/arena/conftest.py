"""Fixtures of the arena tests. The sandbox tests need a Docker engine and the sandbox image:
without them they are skipped, except under ``CI=true``, where they fail (CI must never pass
by skipping the sandbox)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from docker.errors import DockerException

from arena.sandbox.container import engine_client
from arena.sandbox.image import ImageError, ensure_image


def require_sandbox() -> str:
    """The sandbox image's tag, once Docker answers and the image is up to date; else skip
    the test, or fail it under ``CI=true``."""
    try:
        engine_client().ping()
        return ensure_image().tag
    except (DockerException, ImageError, OSError) as error:
        message = f"the Docker sandbox is not available: {error}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


@pytest.fixture(autouse=True)
def _runner_registry_restored(monkeypatch: pytest.MonkeyPatch) -> None:
    # `python -m arena`'s main() registers the Docker runner process-wide (the commands
    # need it): a test that runs main() in this process leaves the SDK's registry as found,
    # so that the SDK's own tests still see only its runners.
    import cucumbers.runners

    monkeypatch.setattr(cucumbers.runners, "RUNNERS", dict(cucumbers.runners.RUNNERS))


@pytest.fixture(scope="session")
def sandbox() -> str:
    """The sandbox image's tag (see :func:`require_sandbox`)."""
    return require_sandbox()


@pytest.fixture
def staging(tmp_path: Path, sandbox: str) -> Iterator[Path]:
    """A private staging directory for the bots' files; empty again after each test."""
    folder = tmp_path / "staging"
    folder.mkdir()
    yield folder
    assert list(folder.iterdir()) == [], "a bot's staged copy outlived its match"
