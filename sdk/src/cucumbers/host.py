"""The bot host: ``python -m cucumbers.host BOT_FILE`` runs one bot behind the line protocol
of :mod:`cucumbers.protocol` on its stdin and stdout.

The process runner starts one host per bot, and the arena's Docker sandbox runs this same
module in a container. The host moves the protocol off file descriptors 0 and 1 before any
bot code runs: fd 0 becomes ``/dev/null`` and fd 1 a copy of fd 2, so whatever the bot
prints (``print``, ``sys.stdout``, ``os.write(1, ...)``, its subprocesses) ends up on stderr,
which the runner captures apart from the protocol. The protocol descriptors are
close-on-exec, so no subprocess of the bot inherits them.

With ``CUCUMBERS_OUTPUT_FENCE=1`` in its environment, the host writes :data:`OUTPUT_FENCE`
on stderr after each game's ``end_game`` hook, behind everything the bot printed in that
game: a runner whose protocol and output travel apart (the Docker sandbox's attach stream
carries stdout and stderr in no guaranteed order) waits for it to tell where a game's output
ends, and removes it.

``python -m cucumbers.host --channel DIR BOT_FILE`` speaks the protocol on a Unix socket
instead: it connects to ``DIR/protocol`` for the protocol and to ``DIR/output`` for the bot's
output (its fds 1 and 2 then point there), both listened on by the runner, before any bot
code runs. The Docker sandbox passes such a directory into the bot's container, so that
moves travel through the kernel alone rather than through Docker's attach stream.

A bot's exception (``SystemExit`` included) becomes a ``fault`` message for the move it
concerns, with the bot's own frames (:mod:`cucumbers.tracebacks`), never the end of the
host. What the bot prints through ``sys.stdout`` and ``sys.stderr`` during a move goes to
stderr as before and, line by line, with that move's answer (:mod:`cucumbers.move_output`).
The host exits on ``quit``, at the end of its input, after a ``load_error``, and on a
malformed message from the runner (status 2).
"""

from __future__ import annotations

import faulthandler
import io
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import replace
from typing import TYPE_CHECKING, BinaryIO, TypeVar

from .bot import Bot
from .faults import FaultKind
from .loader import BUILTIN_PREFIX, BotLoadError, describe_exception, load_bot, traceback_of
from .move_output import MoveCapture, TeeStream
from .protocol import (
    MAX_LINE_BYTES,
    EndRound,
    HostMessage,
    LoadError,
    MoveFault,
    MoveRequest,
    ProtocolError,
    Quit,
    Ready,
    StartGame,
    decode_runner_message,
    encode,
    move_reply,
)
from .view import View

if TYPE_CHECKING:
    import socket

#: Longest exception description sent back; the runner cuts it further.
MAX_DETAIL_CHARS = 2000

T = TypeVar("T")

USAGE = "usage: python -m cucumbers.host [--channel DIR] BOT_FILE  (or builtin:NAME)"
#: The runner's sockets in a ``--channel`` directory: the protocol, and the bot's output.
CHANNEL_PROTOCOL = "protocol"
CHANNEL_OUTPUT = "output"
#: Where a game's output ends, on stderr (see the module's docstring).
OUTPUT_FENCE = b"\x00cucumbers:end-of-game-output\x00"
#: The environment variable that asks for :data:`OUTPUT_FENCE`.
OUTPUT_FENCE_VARIABLE = "CUCUMBERS_OUTPUT_FENCE"


class Channel:
    """The host's end of the protocol, on descriptors of its own."""

    def __init__(self, reader: BinaryIO, out_fd: int) -> None:
        self._reader = reader
        self._out = out_fd

    @classmethod
    def take_over_stdio(cls) -> Channel:
        """Move the protocol off fds 0 and 1 and point those where a bot's output belongs."""
        protocol_in = os.dup(0)
        protocol_out = os.dup(1)
        # os.dup already makes them non-inheritable (PEP 446); made explicit because no
        # subprocess of the bot may ever hold the protocol.
        os.set_inheritable(protocol_in, False)
        os.set_inheritable(protocol_out, False)
        cls._redirect_stdio(2)
        return cls(os.fdopen(protocol_in, "rb"), protocol_out)

    @classmethod
    def connect(cls, directory: str) -> Channel:
        """Connect to the runner's sockets in ``directory`` (the protocol first, then the
        output), and point fds 1 and 2 at the output socket, fd 0 at ``/dev/null``."""
        protocol = _connect(os.path.join(directory, CHANNEL_PROTOCOL))
        output = _connect(os.path.join(directory, CHANNEL_OUTPUT))
        # The protocol's descriptors are close-on-exec (socket() makes them so, PEP 446):
        # no subprocess of the bot holds them. The output is fds 1 and 2, inherited.
        protocol_in = protocol.detach()
        protocol_out = os.dup(protocol_in)
        output_fd = output.detach()
        cls._redirect_stdio(output_fd)
        os.close(output_fd)
        return cls(os.fdopen(protocol_in, "rb"), protocol_out)

    @staticmethod
    def _redirect_stdio(output_fd: int) -> None:
        """fd 0 from ``/dev/null``; fds 1 and 2 to ``output_fd`` (the bot's output)."""
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        if output_fd != 2:
            os.dup2(output_fd, 2)
        os.dup2(2, 1)
        # Unbuffered text streams, as under ``python -u``: a bot's last words before a crash
        # are already on stderr.
        sys.stdin = io.TextIOWrapper(
            io.FileIO(0, "r", closefd=False), encoding="utf-8", errors="replace"
        )
        sys.stdout = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False),
            encoding="utf-8",
            errors="backslashreplace",
            write_through=True,
        )

    def send(self, message: HostMessage) -> None:
        """Write one message (blocking: the runner always reads)."""
        data = memoryview(encode(message))
        while data:
            written = os.write(self._out, data)
            data = data[written:]

    def receive(self) -> bytes:
        """The next line from the runner; ``b""`` at the end of input."""
        line = self._reader.readline(MAX_LINE_BYTES + 1)
        if len(line) > MAX_LINE_BYTES:
            raise ProtocolError(f"line longer than {MAX_LINE_BYTES} bytes")
        return line


def _connect(path: str) -> socket.socket:
    import socket  # only the Docker sandbox's socket channel needs it: no cost to the others

    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return sock


def install_move_capture() -> MoveCapture:
    """Put :class:`~cucumbers.move_output.TeeStream` in front of ``sys.stdout`` and
    ``sys.stderr`` (after :meth:`Channel.take_over_stdio`, before the bot is loaded, so a
    stream the bot keeps is one of them); what is written during a move is also captured."""
    capture = MoveCapture()
    sys.stdout = TeeStream(sys.stdout, capture)
    sys.stderr = TeeStream(sys.stderr, capture)
    return capture


def _describe(error: BaseException) -> str:
    try:
        text = describe_exception(error)
    except BaseException:  # the exception's own __str__ is bot code
        text = type(error).__name__
    return text[:MAX_DETAIL_CHARS]


def _fault(id: int, error: BaseException, bot_file: str | None) -> MoveFault:
    """The fault answering move ``id`` for ``error``, with the bot's own frames."""
    return MoveFault(id, FaultKind.CRASH, _describe(error), traceback_of(error, bot_file))


def _call_hook(
    function: Callable[[T], object], argument: T, bot_file: str | None
) -> MoveFault | None:
    """Run a hook; the fault (for a move still to come) of what it raised, or None."""
    try:
        function(argument)
    except BaseException as error:  # any failure of the bot's code is a fault
        return _fault(0, error, bot_file)
    return None


def flush_streams() -> None:
    """Write out what the bot left in the text streams."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(BaseException):  # the bot may have replaced or broken the stream
            stream.flush()


def write_fence() -> None:
    """Flush what the bot left in the text streams, then mark the end of a game's output."""
    flush_streams()
    with suppress(OSError):
        os.write(2, OUTPUT_FENCE)


def serve(
    channel: Channel,
    bot: Bot,
    fence: bool = False,
    capture: MoveCapture | None = None,
    bot_file: str | None = None,
) -> int:
    """Answer the runner's messages until ``quit`` or the end of input; the exit status.
    ``fence``: write :data:`OUTPUT_FENCE` after each game; ``capture``: what the bot prints
    during a move (:func:`install_move_capture`); ``bot_file``: the file whose frames a
    traceback keeps."""
    capture = capture or MoveCapture()
    hook_error: MoveFault | None = None
    last_view: View | None = None  # a move's changes change the game's previous view
    while line := channel.receive():
        message = decode_runner_message(line, last_view)
        if isinstance(message, MoveRequest):
            last_view = message.view
            if hook_error is not None:
                channel.send(replace(hook_error, id=message.id))
                hook_error = None
                continue
            capture.start()
            try:
                value = bot.play(message.view)
            except BaseException as error:  # SystemExit included
                fault = _fault(message.id, error, bot_file)
                channel.send(replace(fault, output=capture.take()))
                continue
            reply = move_reply(message.id, value)  # may run the bot's __repr__: captured
            output = capture.take()
            channel.send(replace(reply, output=output) if output else reply)
        elif isinstance(message, Quit):
            break
        else:
            if isinstance(message, StartGame):
                # As in the in-process runner: a new game forgets a late hook error.
                hook_error = None
                last_view = None
                raised = _call_hook(bot.start_game, message.game, bot_file)
            elif isinstance(message, EndRound):
                raised = _call_hook(bot.end_round, message.result, bot_file)
            else:
                raised = _call_hook(bot.end_game, message.result, bot_file)
                if fence:
                    write_fence()
            if hook_error is None:
                hook_error = raised
    return 0


def run(source: str, channel_dir: str | None = None) -> int:
    """Take over stdio (or connect to the runner's sockets in ``channel_dir``), load the
    bot from ``source`` and serve it; the exit status."""
    fence = os.environ.get(OUTPUT_FENCE_VARIABLE) == "1"
    channel = Channel.take_over_stdio() if channel_dir is None else Channel.connect(channel_dir)
    capture = install_move_capture()
    bot_file = None if source.startswith(BUILTIN_PREFIX) else source
    try:
        bot = load_bot(source)
    except BotLoadError as error:
        channel.send(LoadError(error.kind, str(error)[:MAX_DETAIL_CHARS], error.traceback))
        return 0
    except BaseException as error:  # whatever the loader let through
        channel.send(LoadError(FaultKind.CRASH, _describe(error), traceback_of(error, bot_file)))
        return 0
    channel.send(Ready())
    try:
        return serve(channel, bot, fence, capture, bot_file)
    except ProtocolError as error:
        print(f"cucumbers.host: bad message from the runner: {error}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """The ``python -m cucumbers.host`` entry point."""
    args = list(sys.argv[1:] if argv is None else argv)
    channel_dir = None
    if len(args) == 3 and args[0] == "--channel":
        channel_dir, args = args[1], args[2:]
    if len(args) != 1:
        print(USAGE, file=sys.stderr)
        return 2
    # A segfault in a bot's C extension leaves a traceback in its output.
    faulthandler.enable()
    try:
        return run(args[0], channel_dir)
    except (BrokenPipeError, ConnectionResetError):
        return 0  # the runner went away; nobody is listening
    except OSError as error:
        print(f"cucumbers.host: {error}", file=sys.stderr)
        return 1


def _exit(status: int) -> None:
    flush_streams()
    # os._exit: neither the bot's non-daemon threads nor its atexit handlers may keep the
    # host alive (or running bot code) after the runner said quit.
    os._exit(status)


if __name__ == "__main__":
    _exit(main())
