"""The compose stack's reverse proxy, ``deploy/proxy/nginx.conf``, run for real: Debian's
nginx (``deploy/ensure-nginx.sh`` installs it) with the shipped file, only its addresses
and temporary folders moved into the test's folder.

- In front of gunicorn at its weakest (sync workers, two of them, which three slow clients
  stall on their own: the control below), dozens of slow clients (requests begun and never
  ended, form bodies trickled to a page that reads them, a 2 MB answer never read) do not
  keep a visitor from being served.
- What gunicorn is told: one X-Forwarded-For entry (the client), X-Forwarded-Proto as the
  TLS proxy in front said it, no other forwarding header; bodies beyond the proxy's limit
  refused before gunicorn sees a byte, in the API's error shape."""

from __future__ import annotations

import http.client
import http.server
import json
import os
import re
import socket
import socketserver
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings

from tests.web.matches.celery_worker import REPO, kill, platform_env
from tests.web.test_slow_clients import answers, free_port, visitor_is_served

NGINX = Path("/usr/sbin/nginx")
CONF = REPO / "deploy" / "proxy" / "nginx.conf"
#: Of each kind (header, body, reader), through the proxy: far more than gunicorn's workers.
SLOW_CLIENTS = 12
#: Of each kind, straight at gunicorn: three are enough to stall two sync workers.
CONTROL_CLIENTS = 3
START_SECONDS = 60
#: More than a Unix socket's and a TCP socket's buffers hold unread, less than the 64 MB of
#: temporary file the proxy may fill per answer.
BIG_ANSWER = 2 * 1024 * 1024


@pytest.fixture(autouse=True)
def nginx_installed() -> None:
    if not NGINX.exists():
        message = f"{NGINX} is missing: deploy/ensure-nginx.sh installs Debian's nginx-light"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)


def proxy_config(folder: Path, upstream: Path, port: int, health_port: int) -> Path:
    """The shipped file with its listening ports, its upstream socket and its temporary
    folders moved into ``folder``; everything else as shipped."""
    text = CONF.read_text()
    moves = {
        "unix:/run/gunicorn/web.sock": f"unix:{upstream}",
        "listen 8080 default_server;": f"listen 127.0.0.1:{port} default_server;",
        "listen 127.0.0.1:8081;": f"listen 127.0.0.1:{health_port};",
        " /tmp/": f" {folder}/",
    }
    for old, new in moves.items():
        assert old in text, f"{CONF.name} no longer says {old!r}: update this test's moves"
        text = text.replace(old, new)
    path = folder / "nginx.conf"
    path.write_text(text)
    return path


@contextmanager
def nginx(folder: Path, upstream: Path) -> Iterator[str]:
    """The proxy on loopback in front of the Unix socket ``upstream``; its base URL."""
    port, health_port = free_port(), free_port()
    conf = proxy_config(folder, upstream, port, health_port)
    # As root, nginx's workers would run as nobody, who cannot enter pytest's private
    # folders (where the socket is); in the container the whole server is unprivileged.
    directives = "daemon off;" + (" user root root;" if os.geteuid() == 0 else "")
    log = folder / "nginx.log"
    with log.open("ab") as out:
        server = subprocess.Popen(
            [str(NGINX), "-c", str(conf), "-p", str(folder), "-g", directives],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not answers(f"http://127.0.0.1:{health_port}/health", 2):
            if time.monotonic() > deadline or server.poll() is not None:
                pytest.fail(f"nginx did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        kill(server, 15)


@contextmanager
def sync_gunicorn(folder: Path, collected: bool = False) -> Iterator[tuple[Path, str]]:
    """gunicorn with the shipped settings but two sync workers (the weakest server: each
    belongs to one client until it is done), on a Unix socket (the proxy's upstream) and a
    loopback port (the control's way in). ``collected``: the static files collected first,
    as the image does (the HTML pages need their manifest; the API does not)."""
    sock, port = folder / "web.sock", free_port()
    # A static file larger than any socket's buffers (WhiteNoise serves it, as the image's
    # static files): a reader that never reads holds whoever writes it.
    static = folder / "static"
    static.mkdir()
    (static / "big.bin").write_bytes(os.urandom(BIG_ANSWER))
    env = platform_env(SECURE_SSL_REDIRECT="0", ALLOWED_HOSTS="127.0.0.1", STATIC_ROOT=str(static))
    if collected:
        made = subprocess.run(
            [sys.executable, "-m", "django", "collectstatic", "--noinput", "-v", "0"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
    argv = [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py"]
    argv += ["--workers", "2", "--worker-class", "sync", "--threads", "1"]
    argv += ["--bind", f"unix:{sock}", "--bind", f"127.0.0.1:{port}", "web.wsgi"]
    log = folder / "gunicorn.log"
    with log.open("ab") as out:
        server = subprocess.Popen(
            argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_SECONDS
        while not (sock.exists() and answers(f"{url}/health/live", 2)):
            if time.monotonic() > deadline or server.poll() is not None:
                pytest.fail(f"gunicorn did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)
        yield sock, url
    finally:
        kill(server, 15)


@contextmanager
def siege(url: str, each: int) -> Iterator[None]:
    """``each`` slow clients of every kind on ``url`` until the block ends: headers begun
    and never ended, a form's body declared and trickled (the CSRF check reads it before
    any view: a sync worker waits for the rest), a large answer asked for and never read."""
    port = int(url.rsplit(":", 1)[1])
    clients: list[socket.socket] = []
    try:
        for _ in range(each):
            trickle = socket.create_connection(("127.0.0.1", port))
            trickle.sendall(b"GET /api/leaderboard/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            clients.append(trickle)
        for _ in range(each):
            body = socket.create_connection(("127.0.0.1", port))
            body.sendall(
                b"POST /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Cookie: csrftoken=" + b"a" * 32 + b"\r\n"
                b"Content-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 100000\r\n\r\nusername="
            )
            clients.append(body)
        for _ in range(each):
            reader = socket.socket()
            reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            reader.connect(("127.0.0.1", port))
            reader.sendall(b"GET /static/big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            clients.append(reader)
        time.sleep(0.5)  # let the server take them: then the visitor comes
        yield
    finally:
        for client in clients:
            client.close()


@pytest.mark.django_db(transaction=True)
def test_slow_clients_through_the_proxy_do_not_stall_a_visitor(tmp_path: Path) -> None:
    with sync_gunicorn(tmp_path) as (sock, direct), nginx(tmp_path, sock) as proxied:
        assert visitor_is_served(proxied, pages=1)
        with siege(proxied, SLOW_CLIENTS):
            assert visitor_is_served(proxied)
        # The static files come through whole (WhiteNoise behind the proxy, as in the
        # stack); this one is larger than the proxy's memory buffers: its temporary file.
        with urllib.request.urlopen(f"{proxied}/static/big.bin", timeout=10) as response:
            assert response.read() == (sock.parent / "static" / "big.bin").read_bytes()
        # The control: a tenth of that siege straight at the same gunicorn stalls it, so
        # the proxy is what kept the visitor served above.
        assert visitor_is_served(direct, pages=1)
        with siege(direct, CONTROL_CLIENTS):
            assert not visitor_is_served(direct, pages=1, timeout=3)


# --- what gunicorn is told -------------------------------------------------------------


class Recorder(http.server.BaseHTTPRequestHandler):
    """An upstream that answers 200 and keeps each request's headers and body length."""

    protocol_version = "HTTP/1.1"
    seen: list[tuple[dict[str, str], int]]

    def do_GET(self) -> None:
        self.record()

    def do_POST(self) -> None:
        self.record()

    def record(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        received = len(self.rfile.read(length))
        self.server.seen.append((dict(self.headers.items()), received))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")

    def address_string(self) -> str:
        return "proxy"  # a Unix socket's peer has no address

    def log_message(self, format: str, *args: object) -> None:
        pass


class RecordingServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, path: Path) -> None:
        super().__init__(str(path), Recorder)
        self.seen: list[tuple[dict[str, str], int]] = []


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[str, RecordingServer]]:
    upstream = RecordingServer(tmp_path / "upstream.sock")
    thread = threading.Thread(target=upstream.serve_forever, daemon=True)
    thread.start()
    try:
        with nginx(tmp_path, tmp_path / "upstream.sock") as url:
            yield url, upstream
    finally:
        upstream.shutdown()
        upstream.server_close()


def ask(url: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    port = int(url.rsplit(":", 1)[1])
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST" if body else "GET", path, body=body or None, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def forwarded(upstream: RecordingServer) -> dict[str, str]:
    headers = upstream.seen[-1][0]
    return {name.lower(): value for name, value in headers.items() if "forward" in name.lower()}


def test_gunicorn_is_told_one_client_address_and_the_tls_proxys_scheme(
    recorded: tuple[str, RecordingServer],
) -> None:
    url, upstream = recorded
    # Straight from this host, no proxy before it: the connection's address, plain http.
    assert ask(url, "/", {"Host": "arena.example.org"})[0] == 200
    assert forwarded(upstream) == {"x-forwarded-for": "127.0.0.1", "x-forwarded-proto": "http"}
    assert upstream.seen[-1][0]["Host"] == "arena.example.org"
    # Through the TLS proxy in front: the client it names (the entries before it are the
    # client's own word), https, and no other forwarding header reaches gunicorn.
    tls_proxy = {
        "Host": "arena.example.org",
        "X-Forwarded-For": "203.0.113.66, 198.51.100.7",
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "evil.example",
        "Forwarded": "for=192.0.2.1;proto=https",
        "X-Real-IP": "192.0.2.2",
    }
    assert ask(url, "/api/leaderboard/", tls_proxy)[0] == 200
    assert forwarded(upstream) == {"x-forwarded-for": "198.51.100.7", "x-forwarded-proto": "https"}
    assert "X-Real-IP" not in upstream.seen[-1][0]
    # Proxies of a private network between them are passed over to the client.
    assert ask(url, "/", {**tls_proxy, "X-Forwarded-For": "198.51.100.7, 10.1.2.3"})[0] == 200
    assert forwarded(upstream)["x-forwarded-for"] == "198.51.100.7"
    # Only https is believed: anything else is the connection's own scheme.
    assert ask(url, "/", {**tls_proxy, "X-Forwarded-Proto": "gopher"})[0] == 200
    assert forwarded(upstream)["x-forwarded-proto"] == "http"


def test_the_largest_upload_passes_whole_and_a_larger_body_is_refused_unread(
    recorded: tuple[str, RecordingServer],
) -> None:
    from web.request_size import largest_body

    url, upstream = recorded
    limit = re.search(r"^\s*client_max_body_size (\d+)m;$", CONF.read_text(), re.MULTILINE)
    assert limit is not None
    assert largest_body() == settings.UPLOAD_MAX_BYTES + 64 * 1024
    assert int(limit[1]) * 1024 * 1024 > largest_body()  # Django's own 413 answers between
    status, _ = ask(url, "/api/bots/1/versions/", {"Host": "a"}, b"x" * largest_body())
    assert status == 200 and upstream.seen[-1][1] == largest_body()
    requests = len(upstream.seen)
    status, body = ask(url, "/api/bots/1/versions/", {"Host": "a"}, b"x" * (2 * 1024 * 1024))
    assert status == 413
    assert json.loads(body)["code"] == "too_large"
    assert len(upstream.seen) == requests  # gunicorn never saw it
    status, _ = ask(url, "/bots/new/", {"Host": "a"}, b"x" * (2 * 1024 * 1024))
    assert status == 413 and len(upstream.seen) == requests


@pytest.mark.django_db(transaction=True)
def test_the_web_containers_health_check_asks_gunicorn_on_its_socket(tmp_path: Path) -> None:
    check = [sys.executable, "deploy/healthcheck.py"]
    with sync_gunicorn(tmp_path, collected=True) as (sock, _):
        env = {**os.environ, "GUNICORN_BIND": f"unix:{sock}", "ALLOWED_HOSTS": "127.0.0.1"}
        healthy = subprocess.run(check, cwd=REPO, env=env, capture_output=True, text=True)
        assert healthy.returncode == 0, healthy.stderr
    gone = subprocess.run(check, cwd=REPO, env=env, capture_output=True, text=True)
    assert gone.returncode == 1 and "unhealthy" in gone.stderr
