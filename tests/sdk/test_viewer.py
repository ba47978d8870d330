"""The replay viewer's SDK side: the offline page of ``cucumbers replay --html`` and the
viewer's pure model (run on node when the machine has it)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cucumbers.cli import main as cucumbers
from cucumbers.games import CONCOMBRE, FIVE_CUCUMBERS
from cucumbers.replay import save_replay
from cucumbers.viewer_html import VIEWER_DIR, games_block, replay_page, script_json, with_games
from tests.e2e.replays import FAULT_DETAIL, concombre_game, five_cucumbers_game

HERE = Path(__file__).resolve().parent
EMBEDDED = re.compile(r'<script type="application/json" id="replay-data">(.*?)</script>', re.S)


def test_the_html_page_is_self_contained_with_the_replay_inlined(tmp_path: Path) -> None:
    replay = five_cucumbers_game()
    source = save_replay(replay, tmp_path / "game.json")
    out = tmp_path / "game.html"
    assert cucumbers(["replay", str(source), "--html", str(out)]) == 0
    page = out.read_text("utf-8")
    # Nothing to fetch: no URL, no external script or style sheet.
    assert not re.search(r"https?://|\bsrc=|<link\b|@import", page)
    (embedded,) = EMBEDDED.findall(page)
    assert json.loads(embedded) == replay
    # The fault detail holds "</script>": it must not end the data block early.
    assert "</script>" in FAULT_DETAIL and "</script" not in embedded.lower()
    assert page.count("</script>") == 2
    assert "export function tableAt" in page and "export function mountViewer" in page
    assert 'from "./model.js"' not in page


def test_script_json_escapes_what_could_end_a_script() -> None:
    value = {"name": "</script><!-- & \u2028"}
    text = script_json(value)
    assert not set("<>&") & set(text) and "\u2028" not in text
    assert json.loads(text) == value


def test_the_page_title_is_escaped() -> None:
    page = replay_page({"game": "<b>x</b>", "seed": 1})
    assert "<title><b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def test_an_unwritable_output_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = save_replay(five_cucumbers_game(), tmp_path / "game.json")
    assert cucumbers(["replay", str(source), "--html", str(tmp_path / "no" / "x.html")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_the_viewers_table_of_games_is_the_one_the_registry_generates() -> None:
    # model.js is served as a static file, so it carries the built-in games; if this fails,
    # run `python -m cucumbers.viewer_html` to regenerate the table.
    model = (VIEWER_DIR / "model.js").read_text("utf-8")
    builtin = {rules.name: rules for rules in (FIVE_CUCUMBERS, CONCOMBRE)}
    assert games_block(builtin) in model
    assert with_games(model, builtin) == model
    assert '"12": "Q"' in games_block(builtin) and '"title": "Five Cucumbers"' in model


def test_the_viewer_files_ship_with_the_sdk() -> None:
    assert {p.name for p in VIEWER_DIR.iterdir()} >= {"viewer.js", "model.js", "viewer.css"}
    pyproject = (HERE.parents[1] / "sdk" / "pyproject.toml").read_text("utf-8")
    assert '"viewer/*.js", "viewer/*.css"' in pyproject


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_viewer_model_passes_its_node_tests(tmp_path: Path) -> None:
    files = []
    for name, replay in [("five", five_cucumbers_game()), ("concombre", concombre_game())]:
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(replay), encoding="utf-8")
        files.append(str(path))
    result = subprocess.run(
        ["node", "--experimental-detect-module", "--test", str(HERE / "viewer_model_test.mjs")],
        env={**os.environ, "VIEWER_REPLAYS": ":".join(files)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"# pass [1-9]", result.stdout) and "# fail 0" in result.stdout
