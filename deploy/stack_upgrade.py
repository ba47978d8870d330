"""The upgrade step of ``deploy/stack_check.py``: which release to start from, its tree,
what it needs to start on a fresh host, and what users see of a stack (which an upgrade
must not change)."""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from stack_support import StackCheckFailed
from stack_visitor import Visitor

REPO = Path(__file__).resolve().parents[1]
#: Finished matches whose replays are compared (the newest first).
REPLAYS_COMPARED = 12


@dataclass(frozen=True, slots=True)
class Release:
    """The commit to upgrade from, and the name it was given (a tag or a commit)."""

    commit: str
    name: str

    @classmethod
    def find(cls, wanted: str) -> tuple[Release | None, str]:
        """``auto``: the last tag reachable from HEAD (none: no step); ``none``: no step;
        anything else names a commit. The release (or None) and what to say about it."""
        if wanted == "none":
            return None, "upgrade step skipped (--from none)"
        if wanted == "auto":
            described = _git("describe", "--tags", "--abbrev=0", "HEAD", check=False)
            if not described:
                return None, (
                    "upgrade step skipped: no release tag reachable from HEAD (git tag);"
                    " --from COMMIT (or make stack-check FROM=COMMIT) upgrades from a commit"
                )
            wanted = described
        commit = _git("rev-parse", "--verify", "--quiet", f"{wanted}^{{commit}}", check=False)
        if not commit:
            raise StackCheckFailed(f"--from {wanted}: no such commit in this repository")
        return cls(commit, wanted), f"upgrade from {wanted} ({commit[:12]})"

    def export(self, folder: Path) -> Path:
        """The release's tree (``git archive``: committed files only) in ``folder``."""
        folder.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", self.commit], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
        return folder


def _git(*args: str, check: bool = True) -> str:
    result = subprocess.run(
        ["git", "-C", str(REPO), *args], capture_output=True, text=True, check=check
    )
    return result.stdout.strip() if result.returncode == 0 else ""


def release_overrides(tree: Path, folder: Path) -> tuple[list[Path], str]:
    """Compose override files a release needs to start on a fresh host, and why. Releases
    before issue 26 built the SDK's wheel as the web started, as a user who cannot write
    the image's tree: their web crash-loops wherever that build fails. Their web starts
    without that step (their getting-started page then offers no wheel; this step does
    not look at it)."""
    spec = yaml.safe_load((tree / "docker-compose.yml").read_text())
    command = spec["services"]["web"].get("command") or []
    if not any("build_sdk" in part for part in command):
        return [], ""
    fixed = [re.sub(r"python manage\.py build_sdk[^&]*&&\s*", "", part) for part in command]
    path = folder / "release-override.yml"
    path.write_text(yaml.safe_dump({"services": {"web": {"command": fixed}}}))
    return [path], "the release's web builds the SDK's wheel at start (issue 26): started without"


def all_pages(visitor: Visitor, path: str) -> list[dict[str, Any]]:
    """Every row of a paginated API listing."""
    rows: list[dict[str, Any]] = []
    url: str | None = path
    while url:
        page = visitor.api(url)
        rows += page["results"]
        url = page.get("next")
    return rows


def what_users_see(visitor: Visitor) -> dict[str, Any]:
    """The leaderboard, every bot, every finished match and its players' ratings, and the
    replays of the newest finished matches (the API's JSON and the download's digest)."""
    bots = [
        {key: bot[key] for key in ("id", "name", "game", "owner", "active", "active_version")}
        | {key: bot[key] for key in ("rating", "games", "wins")}
        for bot in all_pages(visitor, "/api/bots/")
    ]
    matches = all_pages(visitor, "/api/matches/?status=finished")
    seen_matches = [
        {key: match[key] for key in ("id", "game", "kind", "rated", "seed", "worker")}
        | {"finished_at": match["finished_at"], "games": len(match["games"])}
        | {
            "participants": [
                [p["bot"], p["version"], p["placement"], p["rating_before"], p["rating_after"]]
                for p in match["participants"]
            ]
        }
        for match in matches
    ]
    replays = {}
    # A rotation's replays are held until its deal set is played: those shown.
    shown = [match for match in matches if not match.get("replays_held")]
    for match in shown[:REPLAYS_COMPARED]:
        path = f"/matches/{match['id']}/games/1/replay.json.gz"
        replays[match["id"]] = {
            "api": visitor.api(f"/api/matches/{match['id']}/games/1/replay/"),
            "download": hashlib.sha256(visitor.raw(path)).hexdigest(),
        }
    return {
        "leaderboard": visitor.leaderboard(),
        "bots": bots,
        "matches": seen_matches,
        "replays": replays,
    }


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed, part by part (empty: nothing)."""
    found = []
    for part in before:
        if before[part] != after.get(part):
            old, new = before[part], after.get(part)
            if isinstance(old, list) and isinstance(new, list):
                changed = [f"{a} -> {b}" for a, b in zip(old, new, strict=False) if a != b]
                detail = f"{len(old)} -> {len(new)} rows; " + "; ".join(changed[:3])
            else:
                keys = sorted(k for k in old if old[k] != (new or {}).get(k))
                detail = f"differing keys {keys[:10]}"
            found.append(f"{part}: {detail}")
    return found
