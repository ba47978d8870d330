"""The line protocol between a runner and the bot host (``python -m cucumbers.host``).

Every message is one line of JSON (a JSON object, UTF-8, ending in ``\\n``) of at most
:data:`MAX_LINE_BYTES`. The runner writes to the host's stdin and reads the host's stdout;
the host moves the bot's own stdout out of the way, so only the host writes here.

Runner to host::

    {"type": "start_game", "game": {GameStart}}
    {"type": "move", "id": 7, "view": [View]}                # the first move of a game
    {"type": "move", "id": 8, "changes": [[3, [..]], ...], "tricks": [[Trick], ...]}
    {"type": "end_round", "result": {RoundResult}}
    {"type": "end_game", "result": {GameResult}}
    {"type": "quit"}

Host to runner::

    {"type": "ready", "protocol": 2}                   # the bot is loaded
    {"type": "load_error", "kind": "error", "detail": "syntax error in bot.py, line 3: ..."}
    {"type": "move", "id": 7, "card": 12}              # what play() returned, unvalidated
    {"type": "move", "id": 7, "unencodable": {"type": "MyInt", "repr": "12"}}
    {"type": "fault", "id": 7, "kind": "crash", "detail": "ValueError: ... (bot.py, line 9)",
     "traceback": {"frames": [...], "exception": "ValueError: ..."}}

A move's view travels as a JSON array, the compact form a move is asked with many times a
game: the view's fields in the order of :class:`~cucumbers.view.View`, each
:class:`~cucumbers.view.Play` as ``[seat, card]`` and each :class:`~cucumbers.view.Trick`
as ``[leader, [plays], winner]`` (what JSON makes of the named tuples themselves). Seat 0
of two, to play on a 6 led in the second trick of round 1::

    ["five-cucumbers",0,2,[5,7,7,13,14,15],[5,7,13,14,15],[[1,6]],6,1,2,1,7,
     [[0,[[0,1],[1,5]],1]],[0,0],[0,1],[],[],null,0,[false,false],[[],[]],1.0,10.0]

Every later move of the same game (after ``start_game``) carries only what changed since
the view before it (protocol 3, :class:`ViewDeltas`): ``changes``, ``[index, value]`` pairs
that replace the fields at those indexes of the previous view, and ``tricks``, the tricks
completed since then, appended to its ``tricks`` (left out when there are none; a new
round's tricks, which do not continue the old ones, come as a change of field 11). Most of a
view is the same from one move to the next (the round's completed tricks, the scores, the
seats), and a view was most of a move's cost to write and to read. The host keeps the last
view it rebuilt and applies the changes to it; a ``changes`` message with no view before it
in the game is a protocol error.

Protocol 1 sent the view as an object keyed by field, protocol 2 every view whole; the
``ready`` message says which protocol a host speaks, and the runner accepts only its own.

A ``move`` or ``fault`` answer may add ``"output": ["line", ...]``, what the bot printed
during that move (:mod:`cucumbers.move_output`), and a ``fault`` or ``load_error`` may add
``"traceback"``, the bot's own frames (:mod:`cucumbers.tracebacks`); both are left out when
there is nothing to say, and both are bounded and checked on arrival (the host runs bot code).

``card`` keeps the JSON type of what the bot returned, so the engine still tells ``7`` from
``True``, ``7.0``, ``"7"`` and ``null``. Anything that is not exactly an ``int``, ``bool``,
finite ``float``, ``str`` or ``None`` (an ``int`` subclass, a list, NaN, an object), and
values too large to send, come as ``unencodable`` with the type's name and a short ``repr``:
the runner turns that into an ``illegal_move`` itself. A ``fault`` answers the move it names;
an exception raised earlier in a hook is reported at the next move.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NoReturn, TypeAlias

from .faults import FaultKind, clipped, not_an_int_detail
from .move_output import check_lines
from .tracebacks import BotTraceback
from .view import (
    FIELD_FROM_JSON,
    GameResult,
    GameStart,
    RoundResult,
    Trick,
    View,
    tricks_from_json,
)

#: The protocol version announced by ``ready`` (2: the view as an array; 3: a move's view as
#: the changes since the previous one).
PROTOCOL_VERSION = 3
#: The longest line either side accepts, newline included.
MAX_LINE_BYTES = 1024 * 1024
#: Longest ``str`` card sent as is, and longest ``repr`` sent for an unencodable card.
MAX_CARD_TEXT = 200
#: Largest ``int`` card sent as is (bits); larger ones are described instead.
MAX_CARD_BITS = 4096

#: A card as it travels: the JSON scalars the engine can be given.
Card: TypeAlias = bool | int | float | str | None


class ProtocolError(ValueError):
    """A line that is not a valid message of this protocol."""


class MessageType(StrEnum):
    """The ``type`` of a message (``move`` is used in both directions)."""

    START_GAME = "start_game"
    MOVE = "move"
    END_ROUND = "end_round"
    END_GAME = "end_game"
    QUIT = "quit"
    READY = "ready"
    LOAD_ERROR = "load_error"
    FAULT = "fault"


# -- runner to host ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartGame:
    """A game begins; the host calls ``bot.start_game``."""

    game: GameStart


@dataclass(frozen=True, slots=True)
class MoveRequest:
    """Ask for move number ``id`` (unique within a runner's client)."""

    id: int
    view: View


@dataclass(frozen=True, slots=True)
class EndRound:
    """A round ended; the host calls ``bot.end_round``."""

    result: RoundResult


@dataclass(frozen=True, slots=True)
class EndGame:
    """A game ended; the host calls ``bot.end_game``."""

    result: GameResult


@dataclass(frozen=True, slots=True)
class Quit:
    """Stop the host."""


RunnerMessage = StartGame | MoveRequest | EndRound | EndGame | Quit

# -- host to runner ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ready:
    """The bot is loaded and the host speaks protocol ``protocol``."""

    protocol: int = PROTOCOL_VERSION


@dataclass(frozen=True, slots=True)
class LoadError:
    """The bot could not be loaded; ``kind`` is ``error`` or ``crash`` (as
    :class:`~cucumbers.loader.BotLoadError`), ``traceback`` the bot's frames when its code
    raised. The host exits after sending it."""

    kind: FaultKind
    detail: str
    traceback: BotTraceback | None = None


@dataclass(frozen=True, slots=True)
class Unencodable:
    """A returned value that cannot travel as a :data:`Card`: its type's name and a repr."""

    type: str
    repr: str

    def describe(self, legal: tuple[int, ...]) -> str:
        """The ``illegal_move`` detail, worded (and cut) as the engine words it."""
        return not_an_int_detail(self.repr, self.type, legal)


@dataclass(frozen=True, slots=True)
class MoveReply:
    """The bot's answer to move ``id``: ``card``, or ``unencodable`` when it is set;
    ``output``: the lines it printed during the move."""

    id: int
    card: Card = None
    unencodable: Unencodable | None = None
    output: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MoveFault:
    """The bot raised (in ``play`` or in a hook since the last move) instead of answering
    move ``id``; ``output``: the lines it printed during the move."""

    id: int
    kind: FaultKind
    detail: str
    traceback: BotTraceback | None = None
    output: tuple[str, ...] = ()


HostMessage = Ready | LoadError | MoveReply | MoveFault

# -- encoding ------------------------------------------------------------------------------


#: One encoder for every message (``json.dumps`` with options builds one per call).
#: ASCII output: a lone surrogate in a bot's string still makes a valid line. No check for
#: circular references: every message is built here of scalars, strings, lists, tuples and
#: dicts made for it (a bot's own objects never reach the encoder: :func:`move_reply`), and
#: the check costs a dictionary entry per array, some thirty in a view.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False, check_circular=False)


def _dump(data: dict[str, Any]) -> bytes:
    return (_ENCODER.encode(data) + "\n").encode("ascii")


def _extras(
    data: dict[str, Any], traceback: BotTraceback | None = None, output: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``data`` with the optional keys that have something to say."""
    if traceback is not None:
        data["traceback"] = traceback.to_json()
    if output:
        data["output"] = list(output)
    return data


#: The last ``end_round`` line written and its result: a round's result is one object
#: for every seat (the match loop hands the same one to each client), results are frozen,
#: and a round's whole record is the dearest notice to write. One tuple, replaced whole:
#: runners in threads of one process never pair a result with another's line.
_last_round_line: tuple[RoundResult | None, bytes] = (None, b"")


def _end_round_line(result: RoundResult) -> bytes:
    global _last_round_line
    written, line = _last_round_line
    if written is not result:
        line = _dump({"type": MessageType.END_ROUND, "result": result.to_json()})
        _last_round_line = (result, line)
    return line


def encode(message: RunnerMessage | HostMessage) -> bytes:
    """One line (with its newline) for ``message``."""
    if type(message) is MoveReply and type(message.card) is int and not message.output:
        # The host's usual answer, written as the encoder writes it (an int's digits), at
        # a tenth of its cost; an unencodable reply's card is None.
        return b'{"type":"move","id":%d,"card":%d}\n' % (message.id, message.card)
    match message:
        case StartGame(game):
            return _dump({"type": MessageType.START_GAME, "game": game.to_json()})
        case MoveRequest(id, view):
            # A view is a named tuple of scalars and tuples: JSON writes it as the array
            # :meth:`View.from_array` reads, with no dictionary built on the way.
            return _dump({"type": MessageType.MOVE, "id": id, "view": view})
        case EndRound(result):
            return _end_round_line(result)
        case EndGame(result):
            return _dump({"type": MessageType.END_GAME, "result": result.to_json()})
        case Quit():
            return _dump({"type": MessageType.QUIT})
        case Ready(protocol):
            return _dump({"type": MessageType.READY, "protocol": protocol})
        case LoadError(kind, detail, traceback):
            data: dict[str, Any] = {
                "type": MessageType.LOAD_ERROR,
                "kind": kind.value,
                "detail": detail,
            }
            return _dump(_extras(data, traceback))
        case MoveReply(id, card, None, output):
            return _dump(_extras({"type": MessageType.MOVE, "id": id, "card": card}, None, output))
        case MoveReply(id, _, Unencodable(name, shown), output):
            data = {
                "type": MessageType.MOVE,
                "id": id,
                "unencodable": {"type": name, "repr": shown},
            }
            return _dump(_extras(data, None, output))
        case MoveFault(id, kind, detail, traceback, output):
            data = {"type": MessageType.FAULT, "id": id, "kind": kind.value, "detail": detail}
            return _dump(_extras(data, traceback, output))
    raise TypeError(f"not a protocol message: {message!r}")


#: The index of ``View.tricks``, the field a move's ``tricks`` appends to.
TRICKS_FIELD = View._fields.index("tricks")


class ViewDeltas:
    """The runner's encoder of its messages to one host (protocol 3): a move's view as the
    changes since the last view sent to that host in the same game, the first move of a
    game (after :class:`StartGame`) with its view whole. One per host: the host keeps the
    same last view, since it reads every message in the order they were written."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: View | None = None

    def encode(self, message: RunnerMessage) -> bytes:
        """One line for ``message``, as :func:`encode` but for a move's view."""
        if type(message) is not MoveRequest:
            if type(message) is StartGame:
                self._last = None
            return encode(message)
        last, view = self._last, message.view
        self._last = view
        if last is None:
            return encode(message)
        changes = []
        added: tuple[Trick, ...] = ()
        # The fields by position, each of its own type.
        fields: tuple[Any, ...] = view
        previous: tuple[Any, ...] = last
        for index, (now, before) in enumerate(zip(fields, previous, strict=True)):
            if now is before or now == before:
                continue
            if index == TRICKS_FIELD and now[: len(before)] == before:
                added = now[len(before) :]
            else:
                changes.append((index, now))
        data: dict[str, Any] = {"type": MessageType.MOVE, "id": message.id, "changes": changes}
        if added:
            data["tricks"] = added
        return _dump(data)


def _changed_view(last: View | None, changes: object, tricks: object) -> View:
    """``last`` with a move's ``changes`` and added ``tricks`` (protocol 3). Raises
    ``ProtocolError``, ``TypeError`` or ``ValueError`` on malformed data."""
    if last is None:
        _fail("a move's changes came with no view before them in the game")
    if type(changes) is not list:
        raise TypeError("changes must be an array")
    fields: list[Any] = list(last)
    for index, value in changes:
        if type(index) is not int or not 0 <= index < len(fields):
            raise ValueError(f"no view field {clipped(repr(index))}")
        convert = FIELD_FROM_JSON[index]
        fields[index] = value if convert is None else convert(value)
    if tricks is not None:
        fields[TRICKS_FIELD] += tricks_from_json(tricks)
    return tuple.__new__(View, fields)


def _short_repr(value: object) -> str:
    try:
        # str.__str__: a plain str even if the bot's __repr__ returned a str subclass.
        text = str.__str__(repr(value))
    except BaseException:  # a bot's __repr__ may do anything
        text = f"<unprintable {_type_name(value)}>"
    return text if len(text) <= MAX_CARD_TEXT else text[: MAX_CARD_TEXT - 3] + "..."


def _type_name(value: object) -> str:
    name = type(value).__name__
    return name if type(name) is str and len(name) <= 100 else "object"


def move_reply(id: int, value: object) -> MoveReply:
    """The reply carrying ``value``, whatever the bot returned (called by the host).

    Exact ``int``, ``bool``, ``str``, finite ``float`` and ``None`` travel as JSON; anything
    else is described, so the runner can reject it without ever seeing the object.
    """
    kind = type(value)
    if value is None:
        return MoveReply(id, None)
    if kind is bool:
        return MoveReply(id, value is True)
    if kind is int:
        assert isinstance(value, int)
        if value.bit_length() <= MAX_CARD_BITS:
            return MoveReply(id, value)
        shown = f"<an int of {value.bit_length()} bits>"
        return MoveReply(id, unencodable=Unencodable("int", shown))
    if kind is float:
        assert isinstance(value, float)
        if value == value and value not in (float("inf"), float("-inf")):
            return MoveReply(id, value)
    if kind is str:
        assert isinstance(value, str)
        if len(value) <= MAX_CARD_TEXT:
            return MoveReply(id, value)
    return MoveReply(id, unencodable=Unencodable(_type_name(value), _short_repr(value)))


# -- decoding ------------------------------------------------------------------------------


def _fail(message: str) -> NoReturn:
    raise ProtocolError(message)


def _reject_constant(name: str) -> NoReturn:
    _fail(f"{name} is not JSON")


#: One decoder for every line (``json.loads`` with options builds one per call).
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _load(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_LINE_BYTES:
        _fail(f"line longer than {MAX_LINE_BYTES} bytes")
    try:
        # As json.loads reads bytes; what starts "{" and a second byte other than zero is
        # UTF-8 to json.detect_encoding too (the usual line: no need to ask it).
        utf8 = line[:1] == b"{" and line[1:2] != b"\x00"
        encoding = "utf-8" if utf8 else json.detect_encoding(line)
        data = _DECODER.decode(line.decode(encoding, "surrogatepass"))
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError is a ValueError
        _fail(f"not JSON: {str(error)[:100]}")
    if not isinstance(data, dict):
        _fail("a message must be a JSON object")
    return data


@functools.cache
def _key_sets(
    names: tuple[str, ...], optional: tuple[str, ...]
) -> tuple[frozenset[str], frozenset[str]]:
    """The keys a message must have, and those it may have (built once per message type)."""
    return frozenset({"type", *names}), frozenset({"type", *names, *optional})


def _fields(data: dict[str, Any], *names: str, optional: tuple[str, ...] = ()) -> list[Any]:
    """The values of ``names`` (all required) and of ``optional`` (None when absent)."""
    required, allowed = _key_sets(names, optional)
    if not required <= data.keys() <= allowed:
        shown = ", ".join(names) + "".join(f", [{name}]" for name in optional)
        _fail(f"{data.get('type')} message must have exactly the keys type, {shown}")
    return [data[name] for name in names] + [data.get(name) for name in optional]


def _output(value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    try:
        return check_lines(value)
    except ValueError as error:
        _fail(str(error))


def _traceback(value: object) -> BotTraceback | None:
    if value is None:
        return None
    try:
        return BotTraceback.from_json(value)
    except ValueError as error:
        _fail(str(error)[:200])


def _int(value: object, what: str) -> int:
    if type(value) is not int:
        _fail(f"{what} must be an int")
    return value


def _str(value: object, what: str) -> str:
    if type(value) is not str:
        _fail(f"{what} must be a string")
    return value


#: The host's usual answer exactly as it writes it (:func:`encode`): an int card, nothing
#: else. Such a line is read without the JSON decoder, to the same message; any other line
#: (other spacing or order, a sign or zero JSON refuses, longer numbers) takes the full path.
_PLAIN_REPLY = re.compile(
    rb'\{"type":"move","id":(0|[1-9][0-9]{0,17}),"card":(-?(?:0|[1-9][0-9]{0,17}))\}\n?'
)


def decode_host_message(line: bytes) -> HostMessage:
    """Parse one line from the host. Raises :class:`ProtocolError` for anything that is not
    exactly one of the host's messages."""
    plain = _PLAIN_REPLY.fullmatch(line)
    if plain is not None:
        return MoveReply(int(plain[1]), int(plain[2]))
    return _decode_host_line(line)


def _decode_host_line(line: bytes) -> HostMessage:
    """:func:`decode_host_message` through the JSON decoder, for any line."""
    data = _load(line)
    kind = data.get("type")
    if kind == MessageType.MOVE:
        if "unencodable" in data:
            id, described, output = _fields(data, "id", "unencodable", optional=("output",))
            if not isinstance(described, dict) or set(described) != {"type", "repr"}:
                _fail("unencodable must have exactly the keys type, repr")
            name = _str(described["type"], "unencodable type")[:100]
            shown = _str(described["repr"], "unencodable repr")[:MAX_CARD_TEXT]
            unencodable = Unencodable(name, shown)
            return MoveReply(_int(id, "id"), unencodable=unencodable, output=_output(output))
        id, card, output = _fields(data, "id", "card", optional=("output",))
        if card is not None and type(card) not in (bool, int, float, str):
            _fail("card must be a JSON scalar")
        return MoveReply(_int(id, "id"), card, output=_output(output))
    if kind == MessageType.FAULT:
        id, fault, detail, traceback, output = _fields(
            data, "id", "kind", "detail", optional=("traceback", "output")
        )
        if fault != FaultKind.CRASH.value:
            _fail("a fault from the host must be of kind crash")
        return MoveFault(
            _int(id, "id"),
            FaultKind.CRASH,
            _str(detail, "detail"),
            _traceback(traceback),
            _output(output),
        )
    if kind == MessageType.READY:
        (protocol,) = _fields(data, "protocol")
        return Ready(_int(protocol, "protocol"))
    if kind == MessageType.LOAD_ERROR:
        fault, detail, traceback = _fields(data, "kind", "detail", optional=("traceback",))
        if fault not in (FaultKind.ERROR.value, FaultKind.CRASH.value):
            _fail("a load error must be of kind error or crash")
        return LoadError(FaultKind(fault), _str(detail, "detail"), _traceback(traceback))
    _fail(f"unknown message type {clipped(str(kind))!r}")


def decode_runner_message(line: bytes, last: View | None = None) -> RunnerMessage:
    """Parse one line from the runner (in the host); ``last`` is the view of the game's
    previous move, which a move's ``changes`` change (:class:`ViewDeltas`). Raises
    :class:`ProtocolError`."""
    data = _load(line)
    kind = data.get("type")
    try:
        if kind == MessageType.MOVE:
            if "changes" in data:
                id, changes, tricks = _fields(data, "id", "changes", optional=("tricks",))
                return MoveRequest(_int(id, "id"), _changed_view(last, changes, tricks))
            id, view = _fields(data, "id", "view")
            return MoveRequest(_int(id, "id"), View.from_array(view))
        if kind == MessageType.START_GAME:
            (game,) = _fields(data, "game")
            return StartGame(GameStart.from_json(game))
        if kind == MessageType.END_ROUND:
            (result,) = _fields(data, "result")
            return EndRound(RoundResult.from_json(result))
        if kind == MessageType.END_GAME:
            (result,) = _fields(data, "result")
            return EndGame(GameResult.from_json(result))
        if kind == MessageType.QUIT:
            _fields(data)
            return Quit()
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, ProtocolError):
            raise
        _fail(f"malformed {kind} message: {error!r}"[:200])
    _fail(f"unknown message type {clipped(str(kind))!r}")
