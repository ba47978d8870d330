#!/usr/bin/env python3
"""Which system calls outside the sandbox's seccomp allowlist do bots' containers make?

Runs workloads in the sandbox image under a copy of the profile whose default action is
``SCMP_ACT_LOG`` instead of ``EPERM`` (allowed calls pass silently, any other one is
allowed and logged by the kernel), then reads the kernel's log (``dmesg``, audit records
of type 1326) and names the calls. The workloads: Python, numpy, threads, subprocesses,
multiprocessing, files in /tmp, signals, time, and real matches of the built-in bots and of
the given bot files through ``python -m arena match``. An empty answer means the profile
holds everything these workloads need. Needs root (dmesg) and the sandbox image.

    python deploy/sandbox/measure_seccomp.py [BOT.py ...]
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")

WORKLOAD = r"""
import multiprocessing, os, random, signal, socket, subprocess, tempfile, threading, time
import numpy
a = numpy.random.default_rng(1).random((200, 200))
numpy.linalg.eig(a); numpy.linalg.svd(a); numpy.sort(a, axis=None)
threads = [threading.Thread(target=lambda: sum(range(10**5))) for _ in range(4)]
[t.start() for t in threads]; [t.join() for t in threads]
print(subprocess.run(["python3", "-c", "print(1)"], capture_output=True).stdout)
with multiprocessing.Pool(2) as pool:
    print(pool.map(abs, range(-3, 3)))
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "f")
    with open(path, "w") as f:
        f.write("x" * 10000)
    os.rename(path, path + "2"); os.stat(path + "2"); os.listdir(d); os.remove(path + "2")
signal.signal(signal.SIGALRM, lambda *a: None); signal.setitimer(signal.ITIMER_REAL, 0.01)
time.sleep(0.05); random.SystemRandom().random(); time.monotonic(); time.process_time()
a, b = socket.socketpair(); a.sendall(b"x"); b.recv(1)
print("workload done")
"""


def syscall_names() -> dict[int, str]:
    text = UNISTD.read_text()
    return {int(n): name for name, n in re.findall(r"#define __NR_(\w+) (\d+)", text)}


def logging_profile() -> str:
    sys.path.insert(0, str(REPO))
    from arena.sandbox.seccomp import profile

    measured = profile()
    measured["defaultAction"] = "SCMP_ACT_LOG"
    measured.pop("defaultErrnoRet")
    return json.dumps(measured)


def main() -> int:
    bots = sys.argv[1:]
    names = syscall_names()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        file.write(logging_profile())
    subprocess.run(["dmesg", "-C"], check=True)
    image = subprocess.run(
        [sys.executable, "-m", "arena", "image"], cwd=REPO, capture_output=True, text=True
    ).stdout.split()[0]
    run = ["docker", "run", "--rm", "--network", "none", "--cap-drop", "ALL", "--read-only"]
    run += ["--security-opt", "no-new-privileges", "--security-opt", f"seccomp={file.name}"]
    run += ["--tmpfs", "/tmp:rw,size=16m", "--user", "65534:65534", "--entrypoint", "python3"]
    subprocess.run([*run, image, "-c", WORKLOAD], check=True)
    env = {**os.environ, "CUCUMBERS_SANDBOX_SECCOMP": file.name}
    for game in ("five-cucumbers", "concombre"):
        players = ["builtin:random", "builtin:heuristic", "builtin:search", *bots]
        subprocess.run(
            [sys.executable, "-m", "arena", "match", *players, "--game", game, "--games", "3"],
            cwd=REPO,
            env=env,
            check=True,
        )
    log = subprocess.run(["dmesg"], capture_output=True, text=True, check=True).stdout
    seen: dict[str, set[str]] = {}
    for line in log.splitlines():
        if "type=1326" in line and (found := re.search(r'comm="([^"]*)".*syscall=(\d+)', line)):
            name = names.get(int(found.group(2)), found.group(2))
            seen.setdefault(name, set()).add(found.group(1))
    if "callbacks suppressed" in log or "rate limit" in log:
        print("warning: the kernel dropped some records: run again to be sure")
    for name, programs in sorted(seen.items()):
        print(f"{name}: {', '.join(sorted(programs))}")
    print(f"{len(seen)} call(s) outside the allowlist")
    os.unlink(file.name)
    return 1 if seen else 0


if __name__ == "__main__":
    raise SystemExit(main())
