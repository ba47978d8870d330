"""Sandbox settings: documented defaults, ``CUCUMBERS_SANDBOX_*`` variables that fail loudly,
a network that cannot be changed, and the container configuration they make. No Docker needed."""

from __future__ import annotations

from typing import Any

import pytest

from arena.sandbox import labels
from arena.sandbox.container import Seat, container_config
from arena.sandbox.errors import SettingsError
from arena.sandbox.image import image_tag
from arena.sandbox.settings import MIB, SandboxSettings
from tests.arena.conftest import require_sandbox


def test_the_defaults_are_the_documented_ones() -> None:
    settings = SandboxSettings.from_env({})
    assert settings == SandboxSettings(
        image=image_tag(),
        memory_bytes=256 * MIB,
        cpus=1.0,
        pids=64,
        tmp_bytes=16 * MIB,
        open_files=256,
        file_bytes=16 * MIB,
        log_bytes=0,
        user="65534:65534",
        network="none",
        stop_grace_seconds=2.0,
        staging_dir=None,
    )


def test_variables_change_the_settings() -> None:
    settings = SandboxSettings.from_env(
        {
            "CUCUMBERS_SANDBOX_IMAGE": "other:1",
            "CUCUMBERS_SANDBOX_MEMORY": "512m",
            "CUCUMBERS_SANDBOX_CPUS": "0.5",
            "CUCUMBERS_SANDBOX_PIDS": "32",
            "CUCUMBERS_SANDBOX_TMP_SIZE": "8MiB",
            "CUCUMBERS_SANDBOX_NOFILE": "128",
            "CUCUMBERS_SANDBOX_FILE_SIZE": "1048576",
            "CUCUMBERS_SANDBOX_LOG_SIZE": "64k",
            "CUCUMBERS_SANDBOX_USER": "1000:1000",
            "CUCUMBERS_SANDBOX_NETWORK": "none",
            "CUCUMBERS_SANDBOX_STOP_GRACE": "0.5",
            "CUCUMBERS_SANDBOX_STAGING_DIR": "/srv/bots",
        }
    )
    assert settings == SandboxSettings(
        image="other:1",
        memory_bytes=512 * MIB,
        cpus=0.5,
        pids=32,
        tmp_bytes=8 * MIB,
        open_files=128,
        file_bytes=MIB,
        log_bytes=64 * 1024,
        user="1000:1000",
        stop_grace_seconds=0.5,
        staging_dir="/srv/bots",
    )


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("MEMORY", "lots", "CUCUMBERS_SANDBOX_MEMORY='lots' is not a size"),
        ("MEMORY", "1t", "is not a size"),
        ("MEMORY", "16m", "memory_bytes must be an int >= 33554432"),
        ("PIDS", "1.5", "CUCUMBERS_SANDBOX_PIDS='1.5' is not a whole number"),
        ("PIDS", "0", "pids must be an int >= 8"),
        ("CPUS", "nan", "CUCUMBERS_SANDBOX_CPUS='nan' is not a finite number"),
        ("CPUS", "0", "cpus must be a positive number"),
        ("STOP_GRACE", "-1", "stop_grace_seconds must be >= 0"),
        ("USER", "0", "never run as root"),
        ("USER", "1000:0", "never run as root"),
        ("USER", "root", "user must be UID or UID:GID"),
        ("NETWORK", "bridge", "the sandbox network cannot be changed"),
        ("NETWORK", "host", "the sandbox network cannot be changed"),
    ],
)
def test_a_bad_variable_fails_loudly(variable: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace("?", r"\?")):
        SandboxSettings.from_env({f"CUCUMBERS_SANDBOX_{variable}": value})


def test_the_network_cannot_be_set_even_in_code() -> None:
    with pytest.raises(SettingsError, match="always 'none'"):
        SandboxSettings(network="bridge")


def test_blank_variables_keep_the_defaults() -> None:
    assert SandboxSettings.from_env({"CUCUMBERS_SANDBOX_MEMORY": " "}) == SandboxSettings()


# -- the container's configuration -----------------------------------------------------------

#: The Engine API version of Docker 20.10 (Debian 12's), the oldest this sandbox runs on.
API_VERSION = "1.41"


def config(settings: SandboxSettings, bot_dir: str | None = "/stage/x") -> dict[str, Any]:
    seat = Seat(
        client=None,  # not used to build the configuration
        settings=settings,
        match_id="m1",
        index=2,
        runner=labels.RunnerIdentity(pid=42, start=7, host="worker-1"),
    )
    return container_config(seat, bot_dir, "/bot/mine.py", API_VERSION)


def test_the_configuration_holds_every_isolation_option() -> None:
    created = config(SandboxSettings())
    host = created["HostConfig"]
    # No network at all: disabled (an empty namespace of its own), on the "none" mode.
    assert (created["NetworkDisabled"], host["NetworkMode"]) == (True, "none")
    assert (host["Memory"], host["MemorySwap"]) == (256 * MIB, 256 * MIB)  # no swap
    assert (host["NanoCpus"], host["PidsLimit"]) == (1_000_000_000, 64)
    assert host["ReadonlyRootfs"] is True
    assert host["Tmpfs"] == {"/tmp": f"rw,nosuid,nodev,size={16 * MIB},mode=1777"}
    assert (host["IpcMode"], host["ShmSize"]) == ("private", 16 * MIB)
    assert host["CapDrop"] == ["ALL"]
    assert host["SecurityOpt"] == ["no-new-privileges"]
    assert created["User"] == "65534:65534"
    assert {u["Name"]: (u["Soft"], u["Hard"]) for u in host["Ulimits"]} == {
        "nofile": (256, 256),
        "fsize": (16 * MIB, 16 * MIB),
        "core": (0, 0),
    }
    assert host["LogConfig"] == {"Type": "none", "Config": {}}
    assert host["AutoRemove"] is True
    assert host.get("Privileged") in (None, False)
    assert not host.get("Binds") and not host.get("Devices") and not host.get("PortBindings")
    (mount,) = host["Mounts"]
    assert (mount["Type"], mount["Source"], mount["Target"], mount["ReadOnly"]) == (
        "bind",
        "/stage/x",
        "/bot",
        True,
    )
    assert (created["Image"], created["Cmd"]) == (image_tag(), ["/bot/mine.py"])
    # docker run -i: the container's input closes with its client's.
    assert (created["OpenStdin"], created["StdinOnce"], created["Tty"]) == (True, True, False)
    assert created["Labels"] == {
        "org.cucumbers.sandbox": "1",
        "org.cucumbers.runner-pid": "42",
        "org.cucumbers.runner-start": "7",
        "org.cucumbers.runner-host": "worker-1",
        "org.cucumbers.match": "m1",
        "org.cucumbers.seat": "2",
    }


def test_the_container_gets_only_harmless_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUCUMBERS_TEST_SECRET", "hunter2")
    created = config(SandboxSettings(cpus=1.5))
    assert sorted(created["Env"]) == [
        "CUCUMBERS_OUTPUT_FENCE=1",
        "MKL_NUM_THREADS=2",
        "OMP_NUM_THREADS=2",
        "OPENBLAS_NUM_THREADS=2",
        "PYTHONHASHSEED=0",
        "PYTHONSAFEPATH=1",
    ]
    assert created["HostConfig"]["NanoCpus"] == 1_500_000_000
    assert "hunter2" not in repr(created)


def test_a_log_size_keeps_a_bounded_json_log_instead() -> None:
    log = config(SandboxSettings(log_bytes=65536))["HostConfig"]["LogConfig"]
    assert log == {"Type": "json-file", "Config": {"max-size": "65536", "max-file": "1"}}


def test_a_builtin_bot_gets_no_mount() -> None:
    assert not config(SandboxSettings(), None)["HostConfig"].get("Mounts")


# -- the sandbox fixture ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ci", "outcome"), [("true", pytest.fail.Exception), ("", pytest.skip.Exception)]
)
def test_without_docker_the_sandbox_tests_skip_except_under_ci(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, ci: str, outcome: type[BaseException]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="the Docker sandbox is not available"):
        require_sandbox()
