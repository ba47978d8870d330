"""Sandbox settings: documented defaults, ``CUCUMBERS_SANDBOX_*`` variables that fail loudly,
a network that cannot be changed, and the container configuration they make. No Docker needed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import labels
from arena.sandbox.container import Seat, channel_for, container_config
from arena.sandbox.errors import SettingsError
from arena.sandbox.image import image_tag
from arena.sandbox.seccomp import profile, profile_file_text, profile_json
from arena.sandbox.settings import MIB, SandboxSettings
from tests.arena.conftest import require_sandbox

REPO = Path(__file__).resolve().parents[2]


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
        runtime="runc",
        seccomp="arena",
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
            "CUCUMBERS_SANDBOX_RUNTIME": "runsc",
            "CUCUMBERS_SANDBOX_SECCOMP": "engine",
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
        runtime="runsc",
        seccomp="engine",
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
        ("RUNTIME", "run c", "runtime must be a runtime's name"),
        ("SECCOMP", "/no/such/profile.json", "seccomp must be 'arena', 'engine' or the path"),
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


def config(
    settings: SandboxSettings, bot_dir: str | None = "/stage/x", channel_dir: str | None = None
) -> dict[str, Any]:
    seat = Seat(
        client=None,  # not used to build the configuration
        settings=settings,
        match_id="m1",
        index=2,
        runner=labels.RunnerIdentity(pid=42, start=7, host="worker-1"),
    )
    return container_config(seat, bot_dir, "/bot/mine.py", API_VERSION, channel_dir)


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
    assert host["SecurityOpt"] == ["no-new-privileges", f"seccomp={profile_json()}"]
    assert host["Runtime"] == "runc"
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


def test_the_seccomp_profile_is_the_sandboxs_own_the_engines_or_a_file(tmp_path: Path) -> None:
    engine = config(SandboxSettings(seccomp="engine"))["HostConfig"]
    assert engine["SecurityOpt"] == ["no-new-privileges"]  # Docker applies its default
    mine = tmp_path / "profile.json"
    mine.write_text('{"defaultAction": "SCMP_ACT_ALLOW"}')
    custom = config(SandboxSettings(seccomp=str(mine)))["HostConfig"]
    assert custom["SecurityOpt"][1] == 'seccomp={"defaultAction": "SCMP_ACT_ALLOW"}'
    mine.write_text("not json")
    with pytest.raises(SettingsError, match="is not JSON"):
        config(SandboxSettings(seccomp=str(mine)))
    # gVisor serves the system calls from its own kernel and applies no OCI profile.
    gvisor = config(SandboxSettings(runtime="runsc"))["HostConfig"]
    assert (gvisor["Runtime"], gvisor["SecurityOpt"]) == ("runsc", ["no-new-privileges"])


def test_the_profile_refuses_what_a_bot_host_never_needs() -> None:
    allowed = {
        name
        for rule in profile()["syscalls"]
        if rule["action"] == "SCMP_ACT_ALLOW"
        for name in rule["names"]
    }
    never = {
        "ptrace",
        "personality",
        "mount",
        "umount2",
        "pivot_root",
        "chroot",
        "unshare",
        "setns",
        "keyctl",
        "add_key",
        "request_key",
        "bpf",
        "userfaultfd",
        "perf_event_open",
        "io_uring_setup",
        "process_vm_readv",
        "process_vm_writev",
        "kexec_load",
        "init_module",
        "open_by_handle_at",
        "clone3",
    }
    assert allowed & never == set()
    assert (profile()["defaultAction"], profile()["defaultErrnoRet"]) == ("SCMP_ACT_ERRNO", 1)
    # 64-bit tables only: the 32-bit one is a classic way around a filter.
    assert profile()["architectures"] == ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"]
    (clone,) = [rule for rule in profile()["syscalls"] if rule["names"] == ["clone"]]
    assert clone["args"][0]["op"] == "SCMP_CMP_MASKED_EQ" and clone["args"][0]["valueTwo"] == 0


def test_the_deployed_profile_file_is_the_sandboxs_profile() -> None:
    # deploy/sandbox/seccomp.json is `python -m arena seccomp`'s output, never edited apart.
    assert (REPO / "deploy/sandbox/seccomp.json").read_text() == profile_file_text()


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


def test_the_socket_channel_is_a_read_only_mount_and_nothing_is_attached() -> None:
    attached = config(SandboxSettings())
    created = config(SandboxSettings(), channel_dir="/stage/channel-1")
    assert created["Cmd"] == ["--channel", "/run/cucumbers", "/bot/mine.py"]
    assert created["HostConfig"]["Mounts"] == [
        {"Target": "/bot", "Source": "/stage/x", "Type": "bind", "ReadOnly": True},
        {
            "Target": "/run/cucumbers",
            "Source": "/stage/channel-1",
            "Type": "bind",
            "ReadOnly": True,
        },
    ]
    assert not created["OpenStdin"] and not created.get("StdinOnce")
    assert not any(created.get(f"Attach{stream}") for stream in ("Stdin", "Stdout", "Stderr"))
    # Everything else is the attach channel's configuration, isolation and environment alike.
    for key in ("Cmd", "OpenStdin", "StdinOnce", "AttachStdin", "AttachStdout", "AttachStderr"):
        attached.pop(key, None)
        created.pop(key, None)
    attached["HostConfig"].pop("Mounts")
    created["HostConfig"].pop("Mounts")
    assert created == attached


def test_auto_is_the_socket_under_runc_and_what_the_engine_registered_for_gvisor() -> None:
    assert channel_for(None, SandboxSettings(channel="attach")) == "attach"  # type: ignore[arg-type]
    assert channel_for(None, SandboxSettings(channel="socket", runtime="runsc")) == "socket"  # type: ignore[arg-type]
    # runc passes a bind-mounted socket: no need to ask the engine.
    assert channel_for(None, SandboxSettings()) == "socket"  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="channel must be one of auto, socket, attach"):
        SandboxSettings(channel="pipe")
    assert SandboxSettings.from_env({"CUCUMBERS_SANDBOX_CHANNEL": "attach"}).channel == "attach"


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
