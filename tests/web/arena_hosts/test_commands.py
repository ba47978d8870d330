"""``manage.py arena_host``: adding a host is idempotent for its key and refuses another key
for a known name; revoking cuts it off; listing shows every host."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from arena.signing import Purpose, SignatureError, Signer, generate_key, write_key_pair
from web.arena_hosts.keys import open_from_host
from web.arena_hosts.models import ArenaHost

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command("arena_host", *args, stdout=out)
    return out.getvalue()


def test_adding_a_host_is_idempotent_for_its_key(tmp_path: Path) -> None:
    public = write_key_pair(tmp_path / "rack2")
    assert run("add", "rack2", "--public-key-file", str(tmp_path / "rack2.pub")).startswith(
        "added: rack2"
    )
    assert run("add", "rack2", "--public-key", public).startswith("already known: rack2")
    assert list(ArenaHost.objects.values_list("name", "public_key")) == [("rack2", public)]


def test_another_key_for_a_known_name_is_refused() -> None:
    run("add", "rack2", "--public-key", Signer("x", generate_key()).public)
    other = Signer("x", generate_key()).public
    with pytest.raises(CommandError, match="registered with another key"):
        run("add", "rack2", "--public-key", other)


@pytest.mark.parametrize("key", ["ed25519:abc", "ssh-ed25519 AAAA"])
def test_a_malformed_key_is_refused(key: str) -> None:
    with pytest.raises(CommandError):
        run("add", "rack2", "--public-key", key)
    assert not ArenaHost.objects.exists()


def test_a_revoked_host_is_cut_off_and_stays_revoked() -> None:
    host = Signer("rack2", generate_key())
    run("add", "rack2", "--public-key", host.public)
    message = host.seal(Purpose.REPORT, "{}")
    assert open_from_host(message, Purpose.REPORT) == ("rack2", "{}")
    assert run("revoke", "rack2").startswith("revoked: rack2")
    with pytest.raises(SignatureError, match="was revoked"):
        open_from_host(message, Purpose.REPORT)
    with pytest.raises(CommandError, match="stays revoked"):
        run("add", "rack2", "--public-key", host.public)
    assert "revoked" in run("list")
    with pytest.raises(CommandError, match="no arena host 'nobody'"):
        run("revoke", "nobody")


def test_replace_gives_a_known_host_its_new_key_but_never_unrevokes() -> None:
    # compose's migrate after a restore: the database knows the old stack's worker key.
    old, new = Signer("compose-worker", generate_key()), Signer("compose-worker", generate_key())
    run("add", "compose-worker", "--public-key", old.public)
    with pytest.raises(CommandError, match="another key"):
        run("add", "compose-worker", "--public-key", new.public)
    run("add", "compose-worker", "--public-key", new.public, "--replace")
    assert ArenaHost.objects.get(name="compose-worker").public_key == new.public
    report = new.seal(Purpose.REPORT, "{}")
    assert open_from_host(report, Purpose.REPORT) == ("compose-worker", "{}")
    with pytest.raises(SignatureError):
        open_from_host(old.seal(Purpose.REPORT, "{}"), Purpose.REPORT)
    run("revoke", "compose-worker")
    with pytest.raises(CommandError):
        run("add", "compose-worker", "--public-key", old.public, "--replace")
    host = ArenaHost.objects.get(name="compose-worker")
    assert host.public_key == new.public and host.revoked_at is not None
