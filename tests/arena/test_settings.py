"""Sandbox settings: documented defaults, ``CUCUMBERS_SANDBOX_*`` variables that fail loudly,
a network that cannot be changed, and the ``docker run`` command they make. No Docker needed."""

from __future__ import annotations

import pytest

from arena.sandbox import labels
from arena.sandbox.container import Seat, client_environment, docker_command
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


# -- the docker run command ------------------------------------------------------------------


def command(settings: SandboxSettings, bot_dir: str | None = "/stage/x") -> list[str]:
    seat = Seat(
        client=None,  # not used to build the command
        settings=settings,
        match_id="m1",
        index=2,
        runner=labels.RunnerIdentity(pid=42, start=7, host="worker-1"),
    )
    return docker_command(seat, "cucumbers-m1-2-abc", bot_dir, "/bot/mine.py")


def test_the_command_holds_every_isolation_option() -> None:
    argv = command(SandboxSettings())
    for option in [
        "--network=none",
        f"--memory={256 * MIB}",
        f"--memory-swap={256 * MIB}",
        "--cpus=1",
        "--pids-limit=64",
        "--read-only",
        f"/tmp:rw,nosuid,nodev,size={16 * MIB},mode=1777",
        "--cap-drop=ALL",
        "--security-opt=no-new-privileges",
        "--user=65534:65534",
        "--ulimit=nofile=256:256",
        f"--ulimit=fsize={16 * MIB}:{16 * MIB}",
        "--ulimit=core=0:0",
        "--log-driver=none",
        "--rm",
        "--pull",
        "type=bind,source=/stage/x,target=/bot,readonly",
    ]:
        assert option in argv, option
    assert argv[-2:] == [image_tag(), "/bot/mine.py"]
    labels_given = {argv[i + 1] for i, arg in enumerate(argv) if arg == "--label"}
    assert labels_given == {
        "org.cucumbers.sandbox=1",
        "org.cucumbers.runner-pid=42",
        "org.cucumbers.runner-start=7",
        "org.cucumbers.runner-host=worker-1",
        "org.cucumbers.match=m1",
        "org.cucumbers.seat=2",
    }


def test_the_container_gets_only_harmless_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUCUMBERS_TEST_SECRET", "hunter2")
    argv = command(SandboxSettings(cpus=1.5))
    given = {argv[i + 1] for i, arg in enumerate(argv) if arg in ("--env", "-e")}
    assert given == {
        "OMP_NUM_THREADS=2",
        "OPENBLAS_NUM_THREADS=2",
        "MKL_NUM_THREADS=2",
        "PYTHONHASHSEED=0",
        "PYTHONSAFEPATH=1",
    }
    assert not any(arg.startswith(("--env-file", "--env=", "-e=")) for arg in argv)
    assert "CUCUMBERS_TEST_SECRET" not in client_environment()
    assert set(client_environment()) <= {
        "PATH",
        "HOME",
        "DOCKER_HOST",
        "DOCKER_CONFIG",
        "DOCKER_CONTEXT",
        "DOCKER_CERT_PATH",
        "DOCKER_TLS_VERIFY",
    }


def test_a_log_size_keeps_a_bounded_json_log_instead() -> None:
    argv = command(SandboxSettings(log_bytes=65536))
    assert "--log-driver=json-file" in argv and "--log-opt=max-size=65536" in argv
    assert "--log-driver=none" not in argv


def test_a_builtin_bot_gets_no_mount() -> None:
    assert not any(arg.startswith("type=bind") for arg in command(SandboxSettings(), None))


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
