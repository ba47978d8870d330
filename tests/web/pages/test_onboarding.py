"""What a newcomer reads: the landing page, the rules and ratings pages (rendered from the
project's own docs/), the getting-started page with this site's commands, the SDK's wheel
it serves, and the token page's command ready to paste."""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

import pytest
from django.conf import LazySettings
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

import cucumbers
from tests.web.conftest import logged_in
from web.pages import documents

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def built_sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The SDK's wheel, built once for the module into a folder of its own."""
    folder = tmp_path_factory.mktemp("sdk")
    from django.conf import settings

    before = settings.SDK_DIR
    settings.SDK_DIR = folder
    call_command("build_sdk")
    yield folder
    settings.SDK_DIR = before


def test_the_landing_page_says_what_this_is_and_how_to_start_beside_the_leaderboard(
    client: Client,
) -> None:
    page = client.get("/")
    text = page.content.decode()
    assert "tournament ground for Python bots" in text
    for link in ('href="/rules/"', 'href="/getting-started/"', 'href="/ratings/"'):
        assert link in text
    assert page.context["rows"] == [] and "Five Cucumbers leaderboard" in text
    # The leaderboard alone, without the introduction, has its own address.
    assert "tournament ground" not in client.get("/leaderboard/").content.decode()


def test_the_rules_page_is_the_projects_own_rules_document(client: Client) -> None:
    text = client.get("/rules/").content.decode()
    source = (documents.docs_dir() / "rules.md").read_text()
    assert "<h1" in text and "Game rules" in text
    assert text.count("<table>") == source.count("\n| --- |")  # every table rendered
    words = re.sub(r"<[^>]+>", "", text).replace("&amp;", "&")
    for heading in re.findall(r"^## (.+)$", source, re.MULTILINE):
        assert heading.replace("`", "").replace("**", "") in words, heading
    # A link to another public document goes to its page; a file not on the site keeps
    # its text without a target.
    assert 'href="/docs/replay-format/"' in text
    assert ".md" not in " ".join(re.findall(r'href="([^"]*)"', text))


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("/ratings/", "How ratings work"),
        ("/docs/writing-bots/", "Writing"),
        ("/docs/replay-format/", "Replay"),
    ],
)
def test_every_public_document_has_its_page(client: Client, path: str, title: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and title in page.content.decode()


def test_a_documents_aligned_columns_use_classes_not_inline_styles(client: Client) -> None:
    """The ratings page's K table is aligned right (``---:``); the site's CSP forbids the
    inline ``style`` markdown-it would write, so the browser would drop the alignment."""
    page = client.get("/ratings/").content.decode()
    assert 'style="' not in page
    assert '<th class="num">K</th>' in page and '<td class="num">10.7</td>' in page


def test_a_document_that_is_not_public_is_404(client: Client) -> None:
    assert client.get("/docs/security/").status_code == 404
    assert client.get("/docs/..%2Fsettings/").status_code == 404


def test_every_relative_link_of_the_docs_leads_to_a_file_of_the_repository() -> None:
    """A clone has nothing beside the repository: a link must resolve inside it."""
    repo = documents.docs_dir().parent.resolve()
    for path in [*documents.docs_dir().glob("*.md"), repo / "README.md"]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            resolved = (path.parent / target).resolve()
            assert resolved.is_relative_to(repo), (path.name, target)
            assert resolved.exists(), (path.name, target)


def test_getting_started_gives_this_sites_commands_and_serves_its_sdk(
    client: Client, built_sdk: Path
) -> None:
    text = client.get("/getting-started/").content.decode()
    wheel = f"cucumbers-{cucumbers.__version__}-py3-none-any.whl"
    assert f"pip install http://testserver/sdk/{wheel}" in text
    assert (
        '<pre class="command" data-command="upload"><code>cucumbers upload mybot.py --bot mybot'
        " --game five-cucumbers --wait --server http://testserver --token YOUR_TOKEN</code></pre>"
    ) in text
    download = client.get(f"/sdk/{wheel}")
    assert download.status_code == 200
    body = b"".join(download.streaming_content)  # type: ignore[attr-defined]
    names = zipfile.ZipFile(BytesIO(body)).namelist()
    assert "cucumbers/engine.py" in names and "cucumbers/templates/starter.py" in names


def test_only_the_sdks_wheel_is_served(client: Client, built_sdk: Path) -> None:
    (built_sdk / "secret.txt").write_text("no")
    for name in ("secret.txt", "..%2F..%2Fsettings.py", "cucumbers-0.0.1-py3-none-any.whl"):
        assert client.get(f"/sdk/{name}").status_code == 404, name


def test_without_a_built_sdk_the_page_says_how_to_install_it(
    client: Client, settings: LazySettings, tmp_path: Path
) -> None:
    settings.SDK_DIR = tmp_path
    text = client.get("/getting-started/").content.decode()
    assert "has not built its SDK yet" in text and "pip install ./sdk" in text


def test_build_sdk_outside_a_checkout_says_the_image_built_the_wheel(
    settings: LazySettings, tmp_path: Path
) -> None:
    # An installed platform (the image) has no sdk/ beside its code: its wheel was built
    # with the image, and build_sdk says so instead of failing in pip.
    settings.REPO_DIR = tmp_path
    settings.SDK_DIR = tmp_path / "sdk-wheel"
    with pytest.raises(CommandError, match=r"no SDK sources at .*SDK_WHEEL_DIR"):
        call_command("build_sdk")
    assert not (tmp_path / "sdk-wheel").exists()


def test_the_token_page_shows_the_whole_upload_command_to_paste(user: User) -> None:
    page = logged_in(user).post("/accounts/tokens/", {"name": "laptop"}).content.decode()
    command = re.search(r'<code id="upload-command">([^<]+)</code>', page)
    assert command, page
    token = re.search(r'id="new-token">(cuc_[^<]+)<', page)
    assert token
    assert command.group(1) == (
        "cucumbers upload mybot.py --bot mybot --game five-cucumbers --wait"
        f" --server http://testserver --token {token.group(1)}"
    )
    assert command.group(1).isascii()


def test_the_favicon_is_the_sites(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("cucumber.svg")
