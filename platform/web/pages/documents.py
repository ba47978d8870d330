"""The project's own documents (``docs/*.md``), rendered for the site: the rules, the replay
format, writing a bot and how ratings work have one source, for the repository and the site.

Rendered once per process with markdown-it-py (CommonMark and tables, raw HTML off: the
files are ours, but nothing in them should be able to become markup). A link to another
public document goes to its page; a link to a file that is not on the site keeps its text
and loses its target."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin

#: The documents the site shows: slug -> file in docs/.
PUBLIC = {
    "rules": "rules.md",
    "ratings": "ratings.md",
    "writing-bots": "writing-bots.md",
    "replay-format": "replay-format.md",
    # The starter bot cites docs/bots.md: the same path on the site answers.
    "bots": "bots.md",
}
#: A document with at least this many sections opens with a table of contents.
TOC_MIN_SECTIONS = 4
_SLUG_OF_FILE = {file: slug for slug, file in PUBLIC.items()}


@dataclass(frozen=True, slots=True)
class Document:
    slug: str
    title: str
    html: str
    #: (anchor, title) of each section (``##``), when there are enough to need a list.
    contents: tuple[tuple[str, str], ...] = ()


def docs_dir() -> Path:
    return Path(settings.DOCS_DIR)


def page_url(slug: str) -> str:
    """Where the site shows the document ``slug``."""
    if slug in ("rules", "ratings"):
        return reverse(slug)
    return reverse("doc", args=[slug])


def _relink(tokens: list[Token]) -> None:
    for token in tokens:
        if token.children:
            _relink(token.children)
        if token.type != "link_open":
            continue
        href = str(token.attrGet("href") or "")
        if "://" in href or href.startswith(("#", "mailto:")):
            continue
        file, _, fragment = href.partition("#")
        slug = _SLUG_OF_FILE.get(Path(file).name) if file.endswith(".md") else None
        if slug is None:
            token.attrs.pop("href", None)  # not on the site: the text stays
            token.tag = "span"
        else:
            token.attrSet("href", page_url(slug) + (f"#{fragment}" if fragment else ""))


def _pair_closing_tags(tokens: list[Token]) -> None:
    """A link_close after a link_open turned into a span closes the span."""
    for token in tokens:
        if token.children:
            opened: list[Token] = []
            for child in token.children:
                if child.type == "link_open":
                    opened.append(child)
                elif child.type == "link_close" and opened:
                    child.tag = opened.pop().tag


#: A table column's alignment (``---:``, ``:---:``) as the site's classes, instead of the
#: inline ``style`` markdown-it writes, which the Content-Security-Policy forbids.
_ALIGNMENT_CLASS = {"text-align:right": "num", "text-align:center": "centred"}


def _align_by_class(tokens: list[Token]) -> None:
    for token in tokens:
        if token.type in ("th_open", "td_open"):
            style = str(token.attrs.pop("style", ""))
            if style in _ALIGNMENT_CLASS:
                token.attrSet("class", _ALIGNMENT_CLASS[style])


def _plain(token: Token) -> str:
    """An inline token's words without their markup (a heading's code, a cell's emphasis)."""
    return "".join(c.content for c in token.children or () if c.type in ("text", "code_inline"))


def _label_tables(tokens: list[Token]) -> None:
    """Name each table after its section and its columns (``meta["label"]``): its scrolling
    box is a region a screen reader announces, one name per table of the page."""
    heading = ""
    labels: list[str] = []
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            heading = _plain(tokens[i + 1])
        elif token.type == "table_open":
            columns: list[str] = []
            j = i
            while tokens[j].type != "thead_close":
                if tokens[j].type == "th_open" and (name := _plain(tokens[j + 1])):
                    columns.append(name)
                j += 1
            label = f"{heading or 'Table'}: table" + (
                f" of {', '.join(columns)}" if columns else ""
            )
            count = labels.count(label)
            labels.append(label)
            token.meta["label"] = f"{label} ({count + 1})" if count else label


def _table_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # A table wider than a phone scrolls in its box: the box takes the focus with Tab (so
    # the keyboard can scroll it) and is named, as every table of the site (.table-wrap).
    label = escape(str(tokens[idx].meta.get("label", "Table")))
    box = f'<div class="table-wrap" role="region" aria-label="{label}" tabindex="0">'
    return box + renderer.renderToken(tokens, idx, options, env)


def _table_close(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return renderer.renderToken(tokens, idx, options, env) + "</div>\n"


@functools.cache
def document(slug: str) -> Document:
    """The rendered document ``slug`` (KeyError when the site does not show it)."""
    text = (docs_dir() / PUBLIC[slug]).read_text(encoding="utf-8")
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    parser.use(anchors_plugin, max_level=3, permalink=False)
    parser.add_render_rule("table_open", _table_open)
    parser.add_render_rule("table_close", _table_close)
    tokens = parser.parse(text)
    _label_tables(tokens)
    _relink(tokens)
    _pair_closing_tags(tokens)
    _align_by_class(tokens)
    title = next((t.content for i, t in enumerate(tokens) if i and tokens[i - 1].tag == "h1"), slug)
    # A code block wider than a phone scrolls: reachable with Tab, as any scrolling region.
    html = parser.renderer.render(tokens, parser.options, {}).replace("<pre>", '<pre tabindex="0">')
    sections = tuple(
        (str(token.attrGet("id")), tokens[i + 1].content)
        for i, token in enumerate(tokens)
        if token.type == "heading_open" and token.tag == "h2" and token.attrGet("id")
    )
    return Document(slug, title, html, sections if len(sections) >= TOC_MIN_SECTIONS else ())
