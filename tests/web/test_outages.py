"""Outages at the edges, real ones: PostgreSQL made unreachable (the test process's
connections run through a relay the test cuts: every connection closed, new ones refused)
and a data directory that is full (a tmpfs of a few kilobytes, filled to the last block).

- Under ``/api/`` an outage is a 503 with ``Retry-After`` in the API's one error shape; the
  site's pages are a short "back soon" page, 503 too.
- A write that fails on a full disk leaves no file behind (an upload's source, a replay).
- ``/health/ready`` says "not ready" while a data directory cannot be written.
- The storage sweep removes files no row references, once past their grace period.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import LazySettings
from django.core.files.base import ContentFile
from django.db import connection
from django.test import Client

from tests.relay import TcpRelay
from tests.web.factories import GOOD_BOT, MatchFactory, UserFactory
from web.accounts.models import ApiToken
from web.bots.models import BotVersion, bot_source_storage
from web.matches.models import replay_storage
from web.matches.replays import StoredFiles
from web.matches.sweep import sweep_storage

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def database_through_relay() -> Iterator[TcpRelay]:
    """This process's database connection through a relay the test can cut."""
    db = connection.settings_dict
    before = db["HOST"], db["PORT"]
    relay = TcpRelay(db["HOST"] or "127.0.0.1", int(db["PORT"] or 5432))
    connection.close()
    db["HOST"], db["PORT"] = "127.0.0.1", str(relay.port)
    try:
        yield relay
    finally:
        relay.cut()
        connection.close()
        db["HOST"], db["PORT"] = before


@contextmanager
def full_disk(folder: Path) -> Iterator[Path]:
    """A tmpfs of 64 KiB at ``folder``, filled: every further block is ENOSPC."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a full disk needs root to mount a small tmpfs")
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], check=True)
    try:
        with contextlib.suppress(OSError), (folder / "filler").open("wb") as filler:
            while True:  # until ENOSPC (at a write, or at the close's flush)
                filler.write(b"\0" * 4096)
                filler.flush()
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def use_storages(settings: LazySettings, sources: Path, replays: Path) -> None:
    backend = "django.core.files.storage.FileSystemStorage"
    settings.STORAGES = {
        **settings.STORAGES,
        "bot_sources": {"BACKEND": backend, "OPTIONS": {"location": sources}},
        "replays": {"BACKEND": backend, "OPTIONS": {"location": replays}},
    }


def files_in(folder: Path) -> list[str]:
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and path.name != "filler"
    )


def test_a_database_outage_is_a_json_503_under_the_api_and_a_back_soon_page_elsewhere() -> None:
    user = UserFactory(username="ola")
    token = ApiToken.issue(user, "tests")[1]
    client = Client(raise_request_exception=False)
    with database_through_relay() as relay:
        assert client.get("/api/bots/").status_code == 200  # through the relay, it answers
        relay.cut()  # PostgreSQL is gone for this process
        connection.close()
        answers = [
            client.get("/api/bots/"),
            client.post(
                "/api/uploads/",
                {"bot": "ola", "game": "concombre", "file": ContentFile(GOOD_BOT, "b.py")},
                HTTP_AUTHORIZATION=f"Token {token}",
            ),
        ]
        for response in answers:
            assert response.status_code == 503
            assert int(response["Retry-After"]) > 0
            assert response["Content-Type"] == "application/json"
            assert response.json() == {
                "detail": "the database is unavailable: nothing was changed; try again shortly",
                "code": "database_unavailable",
            }
        page = client.get("/")
        assert page.status_code == 503 and int(page["Retry-After"]) > 0
        assert page["Content-Type"].startswith("text/html")
        assert b"Back soon" in page.content and b"database" in page.content
    # Back: the same requests answer again.
    assert client.get("/api/bots/").status_code == 200
    assert not BotVersion.objects.exists()


def test_a_full_disk_is_a_503_with_no_debris_and_the_site_not_ready(
    tmp_path: Path, settings: LazySettings
) -> None:
    user = UserFactory(username="pam")
    token = ApiToken.issue(user, "tests")[1]
    client = Client(raise_request_exception=False)
    with full_disk(tmp_path / "disk") as disk:
        use_storages(settings, disk / "sources", disk / "replays")
        (disk / "sources").mkdir(exist_ok=True)  # a directory costs no data block
        response = client.post(
            "/api/uploads/",
            {"bot": "pam", "game": "concombre", "file": ContentFile(GOOD_BOT, "b.py")},
            HTTP_AUTHORIZATION=f"Token {token}",
        )
        assert response.status_code == 503 and int(response["Retry-After"]) > 0
        assert response.json()["code"] == "storage_unavailable"
        assert files_in(disk) == []  # no empty source left behind, no row either
        assert not BotVersion.objects.exists()
        # A replay whose write fails: nothing of it stays, nor of the files before it.
        match = MatchFactory()
        with pytest.raises(OSError), StoredFiles() as files:
            files.save_outputs(match.pk, 1, {0: "x"})  # small: may fit in what is left
            files.save_replay(match.pk, 2, {"big": "y" * 200_000, "n": os.urandom(8).hex()})
        assert files_in(disk) == []
        ready = client.get("/health/ready").json()
        assert ready["status"] == "not ready"
        assert set(ready["storage"]["unwritable"]) == {"bot_sources", "replays"}
    use_storages(settings, tmp_path / "sources", tmp_path / "replays")
    assert client.get("/health/ready").json()["storage"] == "ok"


def test_the_sweep_removes_unreferenced_files_past_their_grace_period_only(
    tmp_path: Path, settings: LazySettings
) -> None:
    use_storages(settings, tmp_path / "sources", tmp_path / "replays")
    match = MatchFactory()
    with StoredFiles() as files:
        kept, _ = files.save_replay(match.pk, 1, {"kept": 1})
    match.games.create(number=1, seed=1, placement=[0], replay=kept)
    # What a process killed between its writes and its commit leaves: files, no rows.
    orphan, _ = StoredFiles().save_replay(match.pk, 2, {"orphan": 1})
    stray_source = bot_source_storage().save("7/9/v1-0123456789abcdef.py", ContentFile(b"x"))
    assert sweep_storage(timedelta(hours=1)).removed == []  # too young: a commit may come
    swept = sweep_storage(timedelta(0))
    assert sorted(swept.removed) == sorted([orphan, stray_source])
    assert replay_storage().exists(kept)
    assert not replay_storage().exists(orphan) and not bot_source_storage().exists(stray_source)
