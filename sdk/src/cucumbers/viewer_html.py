"""A replay as one self-contained HTML page: the web viewer with its script, its styles and
the replay inlined, so a bot author can watch a local game in a browser, offline, from a
``file://`` URL (``cucumbers replay game.json.gz --html game.html``).

The viewer's files (``cucumbers/viewer/``) are the same ones the platform serves on its match
pages; this module only packs them into one page.

>>> page = replay_page(load_replay("game.json.gz"))      # doctest: +SKIP
>>> Path("game.html").write_text(page, encoding="utf-8")  # doctest: +SKIP
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from .games import GameRules, registry
from .games import title as game_title

#: The folder of the viewer's files, for a web server to serve as static files.
VIEWER_DIR = Path(__file__).resolve().parent / "viewer"

#: The viewer's import of its model; the two modules are joined into one inline script,
#: where a relative import has nothing to load from.
_MODEL_IMPORT = re.compile(r'^import \{[^}]*\} from "\./model\.js";\n', re.MULTILINE)
#: The generated table of games in ``model.js`` (:func:`games_block`).
_GAMES_BLOCK = re.compile(r"^export const GAMES = .*?;\n(?=// END GAMES)", re.MULTILINE | re.DOTALL)


def game_labels(rules: GameRules) -> dict[str, Any]:
    """What the viewer needs to draw a game (``model.js``, ``gameInfo``)."""
    return {
        "title": rules.title,
        "unit": rules.unit,
        "shortUnit": rules.unit_short,
        "icons": rules.unit == "cucumbers",
        "dealer": rules.has_dealer,
        "penaltyCards": rules.keeps_penalty_cards,
        "cards": {str(card): name for card, name in sorted(rules.card_names.items())},
    }


def games_block(games: Mapping[str, GameRules] | None = None) -> str:
    """The ``GAMES`` table of ``model.js`` for ``games`` (default: every registered game)."""
    table = {name: game_labels(rules) for name, rules in (games or registry()).items()}
    # Escaped as in script_json: the table is inlined in a <script> by replay_page.
    text = json.dumps(table, indent=2, ensure_ascii=True).replace("<", "\\u003c")
    return f"export const GAMES = {text};\n"


def with_games(model: str, games: Mapping[str, GameRules] | None = None) -> str:
    """``model.js`` with its ``GAMES`` table made from ``games`` (default: the registry)."""
    text, count = _GAMES_BLOCK.subn(lambda _: games_block(games), model, count=1)
    if count != 1:
        raise RuntimeError("model.js no longer holds the generated GAMES table")
    return text


def viewer_file(name: str) -> str:
    """The text of one of the viewer's files (``viewer.js``, ``model.js``, ``viewer.css``)."""
    return resources.files("cucumbers").joinpath("viewer", name).read_text("utf-8")


def script_json(value: Any) -> str:
    """``value`` as JSON that is safe inside ``<script type="application/json">``: ``<``,
    ``>`` and ``&`` are written as ``\\u`` escapes, so no string in it (a bot's name, a
    fault's detail) can close the script element or open a comment. The JSON means the
    same after ``JSON.parse``."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def viewer_script() -> str:
    """``model.js`` and ``viewer.js`` as one module script (the viewer starts itself)."""
    viewer, count = _MODEL_IMPORT.subn("", viewer_file("viewer.js"), count=1)
    if count != 1:
        raise RuntimeError("viewer.js no longer imports model.js on one line")
    # The live registry, so the page labels any registered game (a test's variant too).
    script = with_games(viewer_file("model.js")) + "\n" + viewer
    if "</script" in script.lower():  # would end the inline script early
        raise RuntimeError("the viewer's script contains '</script'")
    return script


def replay_page(replay: Mapping[str, Any], *, title: str | None = None) -> str:
    """A complete HTML page that shows ``replay`` in the viewer, with no external resource:
    it opens from a ``file://`` URL without a network."""
    if title is None:
        game = game_title(str(replay.get("game")))
        title = f"{game} replay · seed {replay.get('seed')}"
    css = viewer_file("viewer.css")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>
body {{ margin: 0; background: #fafcfa; }}
.cv-page {{ max-width: 64rem; margin: 0 auto; padding: 1rem; font-family: system-ui, sans-serif; }}
{css}</style>
</head>
<body>
<main class="cv-page">
<h1>{html.escape(title)}</h1>
<div data-replay-viewer data-game="1" data-replay-inline="replay-data">
<noscript>The replay viewer needs JavaScript; <code>cucumbers replay FILE</code> prints the
game as text.</noscript>
</div>
</main>
<script type="application/json" id="replay-data">{script_json(replay)}</script>
<script type="module">
{viewer_script()}</script>
</body>
</html>
"""


def main() -> None:
    """``python -m cucumbers.viewer_html``: rewrite the ``GAMES`` table of ``model.js`` from
    the registry (run it after adding a game to the SDK)."""
    path = VIEWER_DIR / "model.js"
    path.write_text(with_games(path.read_text("utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
