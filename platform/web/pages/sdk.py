"""The SDK this site runs, served for ``pip install``: a wheel built from ``sdk/`` before
the site serves (``manage.py build_sdk`` in a checkout, which ``make run`` runs at start;
the platform's image builds it at build time, ``SDK_WHEEL_DIR``), so that a bot author
installs exactly the engine the platform plays with."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings

import cucumbers

#: What a file of the SDK directory may be called (and so, what the view serves).
WHEEL_NAME = re.compile(r"\Acucumbers-[0-9][0-9A-Za-z.+]*-py3-none-any\.whl\Z")


def sdk_dir() -> Path:
    return Path(settings.SDK_DIR)


def current_wheel() -> Path | None:
    """The wheel of the SDK version this site runs, once built."""
    found = sdk_dir() / f"cucumbers-{cucumbers.__version__}-py3-none-any.whl"
    return found if found.is_file() else None


class SdkSourcesMissing(RuntimeError):
    """No ``sdk/`` beside the code: an installed platform, whose image built the wheel."""


def build_wheel() -> Path:
    """Build the SDK's wheel into :func:`sdk_dir` (no network: the installed setuptools,
    no dependencies to fetch) and drop the wheels of other versions; its path. Raises
    :class:`SdkSourcesMissing` outside a checkout."""
    source = Path(settings.REPO_DIR) / "sdk"
    if not (source / "pyproject.toml").is_file():
        raise SdkSourcesMissing(
            f"no SDK sources at {source}: an installed platform serves the wheel its image"
            " built (SDK_WHEEL_DIR)"
        )
    target = sdk_dir()
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target) as scratch:
        subprocess.run(
            [
                *[sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps"],
                *["--no-build-isolation", "--wheel-dir", scratch, str(source)],
            ],
            check=True,
        )
        (built,) = Path(scratch).glob("cucumbers-*.whl")
        final = target / built.name
        shutil.move(built, final)  # within one file system: the file appears whole
    for old in target.glob("cucumbers-*.whl"):
        if old != final:
            old.unlink()
    return final
