"""A redis-server of a test's own: a free port, nothing kept on disk, optionally an ACL
file; killed and started again by the test (a restart loses every message, as a broker
without persistence does)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest


class PrivateRedis:
    """A redis-server on a free port that keeps nothing on disk."""

    def __init__(
        self, folder: Path, aclfile: Path | None = None, options: tuple[str, ...] = ()
    ) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed (make services)")
        self.binary, self.folder, self.aclfile = binary, folder, aclfile
        self.options = options
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def url_for(self, user: str, password: str, db: int = 0) -> str:
        return f"redis://{user}:{password}@127.0.0.1:{self.port}/{db}"

    def start(self) -> None:
        argv = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        if self.aclfile is not None:
            argv += ["--aclfile", str(self.aclfile)]
        argv += self.options
        self.process = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"the private redis-server exited ({self.process.returncode})")
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        pytest.fail("the private redis-server did not start")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.kill()
