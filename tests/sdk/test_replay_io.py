"""Replay files: canonical bytes, plain and gzip round trips, and clear errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from cucumbers.replay import (
    REPLAY_FORMAT,
    ReplayFileError,
    dumps_replay,
    iter_replay_files,
    load_replay,
    loads_replay,
    save_replay,
)
from tests.sdk.replay_fixtures import concombre_two_faults, five_cucumbers_fault


def test_dumps_is_compact_utf8_in_the_given_key_order_with_a_newline() -> None:
    replay = {"format": REPLAY_FORMAT, "zeta": 1, "alpha": [1, 2], "name": "Gurke ü 🥒"}
    assert (
        dumps_replay(replay)
        == ('{"format":"cucumbers-replay/1","zeta":1,"alpha":[1,2],"name":"Gurke ü 🥒"}\n').encode()
    )


def test_dumps_refuses_values_json_cannot_hold() -> None:
    with pytest.raises(ValueError):
        dumps_replay({"format": REPLAY_FORMAT, "x": float("nan")})


@pytest.mark.parametrize("name", ["game.json", "game.json.gz"])
def test_it_round_trips_plain_and_gzip_files(tmp_path: Path, name: str) -> None:
    replay = five_cucumbers_fault()
    path = save_replay(replay, tmp_path / name)
    assert path == tmp_path / name
    assert load_replay(path) == replay
    assert load_replay(str(path)) == replay
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left behind


@pytest.mark.parametrize("name", ["game.json", "game.json.gz"])
def test_saving_the_same_replay_twice_gives_identical_bytes(tmp_path: Path, name: str) -> None:
    first = save_replay(concombre_two_faults(), tmp_path / name)
    data = first.read_bytes()
    second = save_replay(concombre_two_faults(), tmp_path / f"again-{name}")
    assert second.read_bytes() == data


def test_gzip_files_carry_no_timestamp_and_no_file_name(tmp_path: Path) -> None:
    data = save_replay(five_cucumbers_fault(), tmp_path / "g.json.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert data[3] == 0  # flags: no FNAME, no comment, no extra field
    assert data[4:8] == b"\0\0\0\0"  # mtime
    assert data[9] == 255  # OS "unknown", whatever machine wrote it
    assert gzip.decompress(data) == dumps_replay(five_cucumbers_fault())


def test_plain_files_hold_exactly_the_canonical_bytes(tmp_path: Path) -> None:
    replay = five_cucumbers_fault()
    assert save_replay(replay, tmp_path / "p.json").read_bytes() == dumps_replay(replay)


def test_it_detects_gzip_by_its_magic_bytes_not_by_the_name(tmp_path: Path) -> None:
    replay = five_cucumbers_fault()
    zipped = tmp_path / "really-gzip.json"
    zipped.write_bytes(gzip.compress(dumps_replay(replay)))
    plain = tmp_path / "really-plain.json.gz"
    plain.write_bytes(dumps_replay(replay))
    assert load_replay(zipped) == replay
    assert load_replay(plain) == replay


def test_it_refuses_to_save_under_another_extension(tmp_path: Path) -> None:
    with pytest.raises(ReplayFileError, match=r"must end in \.json or \.json\.gz"):
        save_replay(five_cucumbers_fault(), tmp_path / "game.txt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON: Expecting property name enclosed in double quotes"),
        (b"", "not valid JSON: Expecting value at line 1 column 1"),
        (b"[1, 2]", "a replay is a JSON object, got an array"),
        (b'"text"', "a replay is a JSON object, got a string"),
        (b'{"format": "cucumbers-replay/1", "x": NaN}', "not valid JSON: NaN is not allowed"),
        (b'{"game": "concombre"}', "not a cucumbers-replay/1 replay (no format key)"),
        (b'{"format": "other/9"}', "not a cucumbers-replay/1 replay (format 'other/9')"),
        (b"\xff\xfe{}", "not UTF-8 text (byte 0)"),
        (b"\x1f\x8b\x08\x00garbage", "not a valid gzip file"),
        (gzip.compress(b"[]"), "a replay is a JSON object, got an array"),
    ],
)
def test_it_explains_why_a_file_is_not_a_replay(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(ReplayFileError) as caught:
        load_replay(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_it_reports_a_missing_file_clearly(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json.gz"
    with pytest.raises(ReplayFileError, match=r"nowhere\.json\.gz: cannot read replay: No such"):
        load_replay(path)


def test_a_replay_file_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="data: not valid JSON"):
        loads_replay(b"nope", "data")


def test_loads_accepts_bytes_in_either_form() -> None:
    replay = five_cucumbers_fault()
    assert loads_replay(dumps_replay(replay)) == replay
    assert loads_replay(gzip.compress(dumps_replay(replay))) == replay
    assert json.loads(dumps_replay(replay)) == replay


def test_iter_replay_files_expands_directories_sorted_and_keeps_files_as_given(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "replays"
    (folder / "sub").mkdir(parents=True)
    for name in ["b.json.gz", "a.json", "c.txt", "d.json.gz.tmp", "sub/e.json"]:
        (folder / name).write_text("{}")
    (folder / "dir.json").mkdir()
    single = tmp_path / "z.json"
    missing = tmp_path / "missing.json"
    found = list(iter_replay_files([single, folder, str(missing)]))
    assert found == [single, folder / "a.json", folder / "b.json.gz", missing]
    assert list(iter_replay_files([])) == []
