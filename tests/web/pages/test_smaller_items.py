"""Issue 30's smaller items that a visitor meets on the site's pages, each checked where
it is met: the page the starter bot cites, the long documents' tables of contents, the
sign-up form's password error, the New bot page's way to Get started, Swagger's page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from web.pages import documents

pytestmark = pytest.mark.django_db


def test_the_document_the_starter_cites_has_its_page(client: Client) -> None:
    starter = (documents.docs_dir().parent / "sdk/src/cucumbers/templates/starter.py").read_text()
    assert "docs/bots.md" in starter
    page = client.get("/docs/bots/")
    assert page.status_code == 200 and "<h1" in page.content.decode()


@pytest.mark.parametrize("slug", sorted(documents.PUBLIC))
def test_a_long_document_opens_with_a_table_of_contents_of_its_sections(
    client: Client, slug: str
) -> None:
    source = (documents.docs_dir() / documents.PUBLIC[slug]).read_text()
    sections = re.findall(r"^## ", source, re.MULTILINE)
    path = "/ratings/" if slug == "ratings" else f"/docs/{slug}/"
    path = "/rules/" if slug == "rules" else path
    page = client.get(path).content.decode()
    toc = re.search(r'<nav class="toc" aria-label="Contents">(.*?)</nav>', page, re.DOTALL)
    if len(sections) < documents.TOC_MIN_SECTIONS:
        assert toc is None
        return
    assert toc is not None, f"{slug}: {len(sections)} sections and no table of contents"
    anchors = re.findall(r'href="#([^"]+)"', toc[1])
    assert len(anchors) == len(sections)
    for anchor in anchors:
        assert f'id="{anchor}"' in page, anchor  # every entry leads to its section


def test_a_weak_passwords_error_sits_under_the_password_field(client: Client) -> None:
    page = client.post(
        "/accounts/signup/",
        {"username": "zed", "email": "", "password1": "short", "password2": "short"},
    ).content.decode()
    error = page.index("This password is too short")
    assert page.index('id="id_password1"') < error < page.index('id="id_password2"')
    assert 'aria-describedby="id_password1_helptext id_password1_error"' in page


def test_the_new_bot_page_links_get_started(client: Client, user: object) -> None:
    client.force_login(user)  # type: ignore[arg-type]
    page = client.get("/bots/new/").content.decode()
    assert 'href="/getting-started/"' in page


def test_swaggers_page_says_its_language_and_darkens_its_badges(client: Client) -> None:
    page = client.get("/api/docs/").content.decode()
    assert re.search(r'<html lang="en">', page)
    # Swagger UI's own badge colours (white on #7d8492 and #89bf04) fall below 4.5:1.
    assert ".swagger-ui .info .title small { background: #4a5260; }" in page
    assert ".swagger-ui .info .title small.version-stamp { background: #2f7d32; }" in page
