"""The ACL file of the broker's users (arena/redis_acl.py) and ``python -m arena redis-acl``;
the users at work on a real Redis are tested in tests/web/matches/test_redis_acl.py."""

from __future__ import annotations

import secrets
import stat
from pathlib import Path

import pytest

from arena.__main__ import main
from arena.broker import ROLE_KEYS, BrokerSettings, Role
from arena.redis_acl import AclError, acl_file, parse_version
from arena.worker import app

USERS = ("platform", "arena", "cache")


def passwords() -> dict[str, str]:
    return {user: secrets.token_urlsafe(24) for user in USERS}


@pytest.mark.parametrize("user", USERS)
def test_a_short_or_missing_password_is_refused_naming_its_variable(user: str) -> None:
    given = passwords()
    given[user] = "short"
    with pytest.raises(AclError, match=f"REDIS_{user.upper()}_PASSWORD"):
        acl_file(given)
    del given[user]
    with pytest.raises(AclError, match=f"REDIS_{user.upper()}_PASSWORD"):
        acl_file(given)


def test_the_file_holds_digests_never_a_password_and_the_default_user_is_off() -> None:
    given = passwords()
    text = acl_file(given)
    assert not any(password in text for password in given.values())
    lines = text.splitlines()
    assert lines[0].startswith("user default off ")
    assert [line.split()[1] for line in lines] == ["default", "platform", "arena", "cache"]
    assert all(" on #" in line for line in lines[1:])


def test_what_an_older_redis_does_not_know_is_left_out() -> None:
    given = passwords()
    assert "client|setinfo" in acl_file(given)  # redis:7 (7.4)
    assert "client|setinfo" not in acl_file(given, (7, 0))  # Debian 12's
    assert parse_version("7.4.1") == (7, 4) and parse_version("7.0") == (7, 0)
    with pytest.raises(AclError, match="REDIS_VERSION"):
        parse_version("seven")


def test_the_command_writes_a_file_redis_can_read_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    given = passwords()
    for user, password in given.items():
        monkeypatch.setenv(f"REDIS_{user.upper()}_PASSWORD", password)
    out = tmp_path / "users.acl"
    assert main(["redis-acl", "--output", str(out), "--redis-version", "7.0"]) == 0
    assert out.read_text() == acl_file(given, (7, 0))
    assert stat.S_IMODE(out.stat().st_mode) == 0o644  # Redis runs as a user of its own
    monkeypatch.setenv("REDIS_ARENA_PASSWORD", "")
    assert main(["redis-acl", "--output", str(tmp_path / "other.acl")]) == 2
    assert "REDIS_ARENA_PASSWORD" in capsys.readouterr().err
    assert not (tmp_path / "other.acl").exists()


def test_each_role_keeps_its_own_unacked_messages_and_remote_control() -> None:
    settings = BrokerSettings.from_env({"REDIS_URL": "redis://r:6379/0"})
    arena, platform = settings.celery(Role.ARENA), settings.celery(Role.PLATFORM)
    keys = ("unacked_key", "unacked_index_key", "unacked_mutex_key")
    arena_keys = [arena["broker_transport_options"][key] for key in keys]
    platform_keys = [platform["broker_transport_options"][key] for key in keys]
    assert not set(arena_keys) & set(platform_keys)
    assert arena_keys[0] == ROLE_KEYS[Role.ARENA].unacked
    assert (arena["control_exchange"], platform["control_exchange"]) == ("arena", "platform")
    # One Redis list per queue, named as the queue: what the ACL names.
    assert arena["broker_transport_options"]["priority_steps"] == [0]


def test_the_arena_worker_declares_no_binding_and_keeps_no_expiring_queue() -> None:
    assert all(queue.no_declare for queue in app.conf.task_queues)
    assert {queue.name for queue in app.conf.task_queues} == {
        "urgent",
        "debut",
        "tournament",
        "review",
        "ladder",
        "reports",
    }
    assert app.conf.control_queue_expires is None


def test_the_review_queue_is_the_arenas_to_take_from_and_the_platforms_to_send_to() -> None:
    lines = {line.split()[1]: line for line in acl_file(passwords()).splitlines()}
    takes = "(~urgent ~debut ~tournament ~review ~ladder +brpop +lpush +rpush)"
    assert takes in lines["arena"]
    assert "~review" in lines["platform"] and "~review" not in lines["cache"]
