"""Slow clients cannot stall the site: the web server as shipped (gunicorn with
``deploy/gunicorn.conf.py``, two worker processes as on a small host, the test database),
six clients holding connections open (three sending their request's headers and never the
end of them, three asking for a page and never reading it) while another visitor's requests
are answered at once. The same siege with gunicorn's sync workers, as before, stalls that
visitor: the test can tell the two apart."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from tests.web.matches.celery_worker import REPO, kill, platform_env

pytestmark = pytest.mark.django_db(transaction=True)

SLOW_CLIENTS = 3  # of each kind: as many as the three, and more than the workers


def free_port() -> int:
    with closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def web_server(log: Path, *extra: str) -> Iterator[str]:
    """gunicorn on loopback with the shipped settings (``extra``: command-line overrides)."""
    port = free_port()
    env = platform_env(
        WEB_CONCURRENCY="2",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        SECURE_SSL_REDIRECT="0",
        ALLOWED_HOSTS="127.0.0.1",
    )
    argv = [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", *extra, "web.wsgi"]
    with log.open("ab") as out:
        server = subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not answers(f"{url}/health/live", 2):
            if time.monotonic() > deadline or server.poll() is not None:
                pytest.fail(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield url
    finally:
        kill(server, 15)


def answers(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return bool(response.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@contextmanager
def siege(url: str) -> Iterator[None]:
    """Slow clients on the server until the block ends."""
    port = int(url.rsplit(":", 1)[1])
    clients: list[socket.socket] = []
    try:
        for _ in range(SLOW_CLIENTS):  # headers begun, never ended
            trickle = socket.create_connection(("127.0.0.1", port))
            trickle.sendall(b"GET /api/leaderboard/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            clients.append(trickle)
        for _ in range(SLOW_CLIENTS):  # a page asked for, never read
            reader = socket.socket()
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            reader.connect(("127.0.0.1", port))
            # The schema: about 70 kB, more than the sockets' buffers hold unread.
            reader.sendall(b"GET /api/schema/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            clients.append(reader)
        time.sleep(0.5)  # let the server take them: then the visitor comes
        yield
    finally:
        for client in clients:
            client.close()


def visitor_is_served(url: str, pages: int = 5, timeout: float = 5) -> bool:
    """Whether a visitor gets the leaderboard (a database read) ``pages`` times, each within
    ``timeout`` seconds. (The site's HTML pages need collectstatic's manifest under these
    production settings; the API's answers do not.)"""
    return all(answers(f"{url}/api/leaderboard/", timeout) for _ in range(pages))


def test_slow_clients_do_not_stall_other_visitors(tmp_path: Path) -> None:
    with web_server(tmp_path / "gunicorn.log") as url:
        assert visitor_is_served(url, pages=1)  # the page works before the siege
        with siege(url):
            assert visitor_is_served(url)


def test_with_sync_workers_as_before_the_same_slow_clients_stall_the_site(
    tmp_path: Path,
) -> None:
    # The control: the siege is real, and the test above could fail.
    # (gunicorn turns sync workers with threads into gthread ones: one thread, then.)
    sync = ("--worker-class", "sync", "--threads", "1")
    with web_server(tmp_path / "gunicorn.log", *sync) as url:
        assert visitor_is_served(url, pages=1)
        with siege(url):
            assert not visitor_is_served(url, pages=1, timeout=3)
