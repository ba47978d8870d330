"""Suite-wide options. ``CUCUMBERS_TEST_LOAD=N`` runs the suite on a busy machine: N CPU-bound
processes spin for the whole session (``make test-busy`` sets one per core), the way a user's
first ``make test`` may share the machine with other work. Races with the Docker engine, the
broker or the database that an idle machine hides show up then."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

LOAD_VARIABLE = "CUCUMBERS_TEST_LOAD"
#: A spinner burns CPU until its parent (pytest) is gone, so a killed run leaves none behind.
SPINNER = (
    "import os\n"
    "parent = os.getppid()\n"
    "while os.getppid() == parent:\n"
    "    for _ in range(200_000):\n"
    "        pass\n"
)

_spinners: list[subprocess.Popen[bytes]] = []
_load_key = pytest.StashKey[int]()


def load_from_env() -> int:
    """The number of CPU-bound processes asked for (0 when unset)."""
    text = os.environ.get(LOAD_VARIABLE, "").strip()
    if not text:
        return 0
    try:
        count = int(text)
    except ValueError:
        count = -1
    if not 0 <= count <= 64:
        raise pytest.UsageError(
            f"{LOAD_VARIABLE} must be a whole number from 0 to 64, not {text!r}"
        )
    return count


def pytest_configure(config: pytest.Config) -> None:
    count = load_from_env()
    for _ in range(count):
        _spinners.append(subprocess.Popen([sys.executable, "-c", SPINNER]))
    if count:
        config.stash[_load_key] = count


def pytest_report_header(config: pytest.Config) -> str | None:
    count = config.stash.get(_load_key, 0)
    return (
        f"busy machine: {count} CPU-bound processes beside the suite ({LOAD_VARIABLE})"
        if count
        else None
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    while _spinners:
        spinner = _spinners.pop()
        spinner.kill()
        spinner.wait()
