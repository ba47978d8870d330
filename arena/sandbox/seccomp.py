"""The sandbox's own seccomp profile: the system calls a bot's container may make.

An allowlist: what the bot host needs (Python, numpy, threads, subprocesses, files in
``/tmp``, time, randomness, the protocol's pipe), by families of calls; checked by running
the sandbox image's workloads under a copy whose default action logs instead of refusing
(``deploy/sandbox/measure_seccomp.py``: no call outside the list was made), and nothing
else. Every other call fails with ``EPERM``, as with Docker's default profile, but
that profile is a denylist wrapped around a broad allowlist meant for any program; this one
is for a Python bot host only. Left out on purpose, among others (a bot calling one gets
``EPERM``: a Python exception, a clean ``crash`` fault):

- ``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``: inspecting or steering processes
  (Docker's default allows ``ptrace`` on recent kernels);
- ``personality``: changing the execution domain (Docker allows a few values);
- ``mount`` and the new mount API, ``umount2``, ``pivot_root``, ``chroot``, ``unshare``,
  ``setns``: namespaces and filesystems (``clone`` may not create namespaces either, and
  ``clone3``, whose flags seccomp cannot see, answers ``ENOSYS`` so that the C library
  falls back to ``clone``);
- ``keyctl``, ``add_key``, ``request_key``, ``bpf``, ``userfaultfd``, ``perf_event_open``,
  ``io_uring_*``, ``fanotify_init``, ``open_by_handle_at``, ``name_to_handle_at``: kernel
  interfaces with a long record of privilege escalations;
- the 32-bit system call table (only the 64-bit one is listed): a classic way around
  filters written for one table.

Only runc enforces the profile as is; gVisor (``runsc``) implements the system calls in
its own kernel and applies an OCI profile only with ``--oci-seccomp``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

#: The namespace flags of ``clone`` (CLONE_NEWNS ... CLONE_NEWTIME): none may be set.
CLONE_NAMESPACE_FLAGS: Final = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)
EPERM: Final = 1
ENOSYS: Final = 38

#: What the bot host may call, by purpose. Names of the x86-64 and arm64 tables (a name a
#: table lacks is skipped by the runtime's libseccomp).
# fmt: off
ALLOWED: Final[Mapping[str, tuple[str, ...]]] = {
    "files and descriptors": (
        "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev",
        "preadv2", "pwritev2", "open", "openat", "openat2", "close", "close_range", "creat",
        "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "lseek",
        "access", "faccessat", "faccessat2", "dup", "dup2", "dup3", "fcntl", "flock",
        "fsync", "fdatasync", "sync_file_range", "ftruncate", "truncate", "fallocate",
        "fadvise64", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "rename",
        "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "link",
        "linkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod", "fchmod",
        "fchmodat", "umask", "utime", "utimes", "utimensat", "futimesat", "sendfile",
        "copy_file_range", "splice", "tee", "ioctl", "getxattr", "lgetxattr", "fgetxattr",
        "listxattr", "llistxattr", "flistxattr",
    ),
    "waiting on descriptors": (
        "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl",
        "epoll_wait", "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "pipe", "pipe2",
        "timerfd_create", "timerfd_settime", "timerfd_gettime", "signalfd", "signalfd4",
    ),
    "memory": (
        "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mincore", "msync",
        "mlock", "munlock", "mlock2", "membarrier", "memfd_create",
    ),
    "processes and threads": (
        "clone", "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4",
        "waitid", "kill", "tkill", "tgkill", "getpid", "getppid", "gettid", "getpgrp",
        "getpgid", "setpgid", "getsid", "setsid", "getuid", "geteuid", "getgid", "getegid",
        "getgroups", "getresuid", "getresgid", "capget", "prctl", "arch_prctl",
        "set_tid_address", "set_robust_list", "get_robust_list", "rseq", "futex",
        "futex_waitv", "sched_yield", "sched_getaffinity", "sched_setaffinity",
        "sched_getparam", "sched_getscheduler", "sched_get_priority_max",
        "sched_get_priority_min", "sched_rr_get_interval", "getpriority", "setpriority",
        "getrlimit", "setrlimit", "prlimit64", "getrusage", "times", "uname", "sysinfo",
        "getcpu",
    ),
    "signals": (
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigsuspend", "rt_sigpending",
        "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "sigaltstack", "pause",
        "alarm", "setitimer", "getitimer", "restart_syscall",
    ),
    "time and randomness": (
        "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
        "time", "getrandom",
    ),
    # Needed by Python's socketpair and by hostile bots' attempts alike: the container has
    # no network but its own loopback, which the sandbox tests check call by call.
    "sockets (no network: only the container's loopback)": (
        "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4", "sendto",
        "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown", "getsockname",
        "getpeername", "setsockopt", "getsockopt",
    ),
}
# fmt: on

#: Calls the profile answers with an error other than ``EPERM``.
ERRORS: Final[Mapping[str, int]] = {
    # seccomp cannot read clone3's flags (they are in memory): "not implemented" makes the C
    # library fall back to clone, whose flags are checked.
    "clone3": ENOSYS,
}


def profile() -> dict[str, Any]:
    """The profile as the Engine API takes it (``SecurityOpt: seccomp=<json>``)."""
    plain = sorted({name for names in ALLOWED.values() for name in names} - {"clone"})
    return {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": EPERM,
        "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"],
        "syscalls": [
            {"names": plain, "action": "SCMP_ACT_ALLOW"},
            {
                "names": ["clone"],
                "action": "SCMP_ACT_ALLOW",
                "args": [
                    # x86-64 passes the flags first; arm64 too (its clone differs in the
                    # order of the later arguments only).
                    {
                        "index": 0,
                        "value": CLONE_NAMESPACE_FLAGS,
                        "valueTwo": 0,
                        "op": "SCMP_CMP_MASKED_EQ",
                    }
                ],
            },
            *(
                {"names": [name], "action": "SCMP_ACT_ERRNO", "errnoRet": errno}
                for name, errno in sorted(ERRORS.items())
            ),
        ],
    }


def profile_json() -> str:
    """The profile as JSON text, stable (sorted, one line)."""
    return json.dumps(profile(), sort_keys=True, separators=(",", ":"))


def profile_file_text() -> str:
    """The profile as ``deploy/sandbox/seccomp.json`` holds it (``python -m arena
    seccomp``), for ``docker run --security-opt seccomp=...`` by hand."""
    return json.dumps(profile(), sort_keys=True, indent=2) + "\n"
