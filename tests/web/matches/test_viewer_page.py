"""The replay viewer on the match page: its markup and its static files from the SDK."""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from cucumbers.viewer_html import VIEWER_DIR
from tests.web.matches.test_matches import recorded  # noqa: F401  (the fixture)
from web.matches.models import Match


def test_the_viewer_files_are_static_files_from_the_sdk() -> None:
    for name in ("viewer.js", "model.js", "viewer.css"):
        found = finders.find(f"viewer/{name}")
        assert found and VIEWER_DIR / name == type(VIEWER_DIR)(found)


def test_the_match_page_has_one_viewer_per_game(client: Client, recorded: Match) -> None:  # noqa: F811
    page = client.get(recorded.get_absolute_url()).content.decode()
    assert page.count("data-replay-viewer") == 2
    for number in (1, 2):
        assert (
            f'data-replay-url="{reverse("api-match-replay", args=[recorded.pk, number])}"' in page
        )
    assert "/static/viewer/viewer.js" in page and 'type="module"' in page
    # Without JavaScript, each game still links its download.
    assert page.count(reverse("replay-download", args=[recorded.pk, 1])) == 2
