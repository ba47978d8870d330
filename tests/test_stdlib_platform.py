"""``platform/`` is a source folder, not a package: ``import platform`` must still give the
standard library's module (else ``uuid``, and with it Django, breaks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STDLIB = Path(sysconfig.get_paths()["stdlib"]).resolve()

_PROBE = """
import json, sys
sys.path.insert(0, {repo!r})
import platform, uuid
print(json.dumps({{
    "file": platform.__file__,
    "version": platform.python_version(),
    "system": platform.system(),
    "uuid": str(uuid.uuid4()),
    "path0": sys.path[0],
}}))
"""


def probe(*args: str, env: dict[str, str] | None = None) -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, *args, "-c", _PROBE.format(repo=str(REPO))],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def is_stdlib(file: str | None) -> bool:
    return file is not None and Path(file).resolve().parent == STDLIB


def test_import_platform_gives_the_standard_library_module_here() -> None:
    import platform

    assert is_stdlib(platform.__file__), platform.__file__
    expected = ".".join(map(str, sys.version_info[:3]))
    assert platform.python_version() == expected


def test_import_platform_from_the_repo_root_gives_the_standard_library_module() -> None:
    # `python -c` puts the working directory (the repo root) first on sys.path, and the
    # probe puts the repo root there once more.
    found = probe()
    assert is_stdlib(found["file"]), found["file"]
    assert found["version"] == ".".join(map(str, sys.version_info[:3]))
    assert found["system"]


def test_import_platform_with_the_repo_root_on_pythonpath() -> None:
    found = probe(env={"PYTHONPATH": str(REPO)})
    assert is_stdlib(found["file"]), found["file"]


def test_no_platform_package_or_module_at_the_repo_root() -> None:
    assert not (REPO / "platform" / "__init__.py").exists()
    assert not (REPO / "platform.py").exists()
