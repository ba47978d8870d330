"""The static checks of an upload: every kind of bad file gets its own clear message, and
nothing is ever executed."""

from __future__ import annotations

import pytest

from tests.sdk.bot_choice import CASES, Case
from tests.web.factories import GOOD_BOT, PLAY_FUNCTION_BOT
from web.bots.errors import UploadError
from web.bots.source_check import check_source
from web.refusals import Problem

LIMIT = 256 * 1024


def refused(filename: str, data: bytes, limit: int = LIMIT) -> UploadError:
    with pytest.raises(UploadError) as caught:
        check_source(filename, data, limit)
    return caught.value


def test_it_accepts_a_bot_class_and_hashes_it() -> None:
    checked = check_source("lowball.py", GOOD_BOT, LIMIT)
    assert checked.filename == "lowball.py"
    assert checked.size == len(GOOD_BOT)
    assert len(checked.sha256) == 64


def test_it_accepts_a_play_function() -> None:
    assert check_source("f.py", PLAY_FUNCTION_BOT, LIMIT).size == len(PLAY_FUNCTION_BOT)


@pytest.mark.parametrize(
    "source",
    [
        b"import cucumbers\n\nclass A(cucumbers.Bot):\n    def play(self, v):\n        return 0\n",
        b"from cucumbers import Bot as B\n\nclass A(B):\n    pass\n",
        b"from cucumbers.bots.simple import RandomBot as _R\n\nclass House(_R):\n    pass\n",
        b"play = lambda view: view.legal[0]\n",
        b"try:\n    import numpy\nexcept ImportError:\n    pass\n\ndef play(view):\n    return 1\n",
    ],
    ids=["module-attribute", "alias", "sdk-builtin-base", "lambda", "play-after-try"],
)
def test_it_recognises_every_way_of_writing_a_bot(source: bytes) -> None:
    check_source("bot.py", source, LIMIT)


def test_it_never_executes_the_file(tmp_path: object) -> None:
    # Would raise SystemExit (and print) if executed; the check only compiles it.
    source = b"import sys\nsys.exit('ran!')\n\ndef play(view):\n    return 0\n"
    check_source("bot.py", source, LIMIT)


@pytest.mark.parametrize("filename", ["bot.txt", "bot", "bot.pyc", "bot.PY", "bot.py.zip"])
def test_it_rejects_a_wrong_extension(filename: str) -> None:
    error = refused(filename, GOOD_BOT)
    assert error.problem is Problem.WRONG_EXTENSION
    assert ".py" in error.message


@pytest.mark.parametrize(
    "filename",
    [
        "../bot.py",
        "/etc/bot.py",
        "a/b.py",
        "..\\bot.py",
        ".hidden.py",
        "my bot.py",
        "bøt.py",
        "bot\x00.py",
        "-rf.py",
        "x" * 120 + ".py",
    ],
)
def test_it_rejects_odd_or_path_like_filenames(filename: str) -> None:
    assert refused(filename, GOOD_BOT).problem is Problem.BAD_FILENAME


@pytest.mark.parametrize("data", [b"", b"   \n\n\t"])
def test_it_rejects_an_empty_file(data: bytes) -> None:
    error = refused("bot.py", data)
    assert error.problem is Problem.EMPTY
    assert error.message == "bot.py is empty"


def test_it_rejects_a_file_over_the_limit() -> None:
    data = GOOD_BOT + b"#" * 3000
    error = refused("bot.py", data, limit=2048)
    assert error.problem is Problem.TOO_LARGE
    assert "limit is 2 KB" in error.message


def test_it_rejects_text_that_is_not_utf8() -> None:
    error = refused("bot.py", "# café\ndef play(v):\n    return 0\n".encode("latin-1"))
    assert error.problem is Problem.NOT_UTF8
    assert "offset 5" in error.message


def test_it_reports_a_syntax_error_with_its_line() -> None:
    error = refused("bot.py", b"def play(view):\n    return 0\n\nif True\n    pass\n")
    assert error.problem is Problem.SYNTAX_ERROR
    assert error.message.startswith("syntax error in bot.py, line 4:")


def test_it_reports_errors_only_the_compiler_finds() -> None:
    error = refused("bot.py", b"def play(view):\n    return 0\n\nreturn 5\n")
    assert error.problem is Problem.SYNTAX_ERROR
    assert "line 4" in error.message


def test_it_rejects_null_bytes() -> None:
    assert refused("bot.py", b"def play(v):\n    return 0\x00\n").problem is (Problem.SYNTAX_ERROR)


@pytest.mark.parametrize(
    "source",
    [
        b"x = 1\n",
        b"class Helper:\n    def play(self, view):\n        return 0\n",
        b"def main():\n    def play(view):\n        return 0\n",
    ],
)
def test_it_rejects_a_file_without_a_bot(source: bytes) -> None:
    error = refused("bot.py", source)
    assert error.problem is Problem.NO_BOT
    assert "no bot found in bot.py" in error.message


def test_it_rejects_several_bots_naming_them() -> None:
    source = GOOD_BOT + b"\n\ndef play(view):\n    return 0\n"
    error = refused("bot.py", source)
    assert error.problem is Problem.SEVERAL_BOTS
    assert "Lowball, play()" in error.message


@pytest.mark.parametrize("case", list(CASES.values()), ids=list(CASES))
def test_it_agrees_with_the_loader_on_files_with_several_bot_classes(case: Case) -> None:
    # The loader's verdict on the same file (tests/sdk/test_loader.py): the class that
    # plays is accepted here; a refusal there is one here, in the same words.
    data = case.source.encode()
    if case.plays is not None:
        assert check_source(case.filename, data, LIMIT).filename == case.filename
        return
    error = refused(case.filename, data)
    assert error.message == case.message
    wrong_choice = case.message.startswith("BOT in ")
    assert error.problem is (Problem.BAD_BOT_CHOICE if wrong_choice else Problem.SEVERAL_BOTS)


def test_a_message_never_quotes_the_source() -> None:
    secret = b"SECRET_STRATEGY = 42\n"
    for data in (secret, secret + b"if True\n"):
        assert "SECRET_STRATEGY" not in refused("bot.py", data).message
