"""Makes, at its first move, system calls a Python bot host never needs and that open the
kernel's riskier doors (ptrace, personality, keys, BPF, userfaultfd, perf events, new
namespaces, mounts), through libc's syscall(2) with harmless arguments, then raises with
what each call answered: the sandbox's seccomp profile refuses every one with EPERM."""

import ctypes
import errno

# x86-64 numbers; arguments that do nothing even where a call is allowed.
CALLS = {
    "ptrace": (101, 0, 0, 0, 0),  # PTRACE_TRACEME: allowed by Docker's default profile
    "personality": (135, 0xFFFFFFFF),  # a query: changes nothing
    "keyctl": (250, 0, 0, 0),
    "bpf": (321, 0, 0, 0),
    "userfaultfd": (323, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "unshare": (272, 0x10000000),  # CLONE_NEWUSER: a namespace of its own
    "mount": (165, 0, 0, 0, 0, 0),
}


def attempt(number, *arguments):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    result = libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in arguments))
    if result == -1:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    return f"returned {result}"


def play(view):
    answers = " ".join(f"{name}={attempt(*call)}" for name, call in CALLS.items())
    raise RuntimeError(answers)
