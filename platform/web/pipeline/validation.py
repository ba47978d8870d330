"""Validation: a new version plays a short match in the sandbox against built-in bots and
becomes active only if it made no fault. Plain functions; ``tasks.py`` wraps them.

Safe to run twice: a version is claimed with a conditional UPDATE (queued → validating), so
only one run plays it; a run that fails for an infrastructure reason gives it back.
"""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from cucumbers.faults import Fault
from cucumbers.games import rules_for
from cucumbers.match import GameOutcome, derive_seed, play_match
from cucumbers.runners import make_runner
from cucumbers.runners.base import BotSpec, Limits
from web.matches.models import MatchKind
from web.matches.recording import Entrant, record_series
from web.matches.replays import StoredFiles
from web.sandbox import SandboxKind, current_sandbox, prepare_runner

from .models import Bot, BotVersion, RejectionKind, VersionStatus

logger = logging.getLogger(__name__)

#: Characters of the bot's own output kept for its owner when it is rejected.
STDERR_TAIL_CHARS = 2000
CANDIDATE = 0  # the validated version is bot 0 of its match


@dataclass(frozen=True, slots=True)
class Verdict:
    """The first fault the candidate made, with its output in that game; None if clean."""

    fault: Fault | None
    output: str = ""


def claim(version_id: int) -> bool:
    """queued → validating; True only for the one caller that moved it."""
    return (
        BotVersion.objects.filter(pk=version_id, status=VersionStatus.QUEUED).update(
            status=VersionStatus.VALIDATING, validation_started_at=timezone.now()
        )
        == 1
    )


def release(version_id: int) -> None:
    """validating → queued, after a run that could not finish (not the bot's fault)."""
    BotVersion.objects.filter(pk=version_id, status=VersionStatus.VALIDATING).update(
        status=VersionStatus.QUEUED, validation_started_at=None
    )


def opponents() -> list[BotSpec]:
    return [BotSpec(f"builtin:{name}", f"builtin:{name}") for name in settings.VALIDATION_OPPONENTS]


def play_validation(
    version: BotVersion, runner_name: str
) -> tuple[int, list[BotSpec], list[GameOutcome], Verdict]:
    """Play the validation games; stop at the first game where the candidate faulted."""
    rules = rules_for(version.bot.game)
    specs = opponents()[: rules.max_players - 1]
    seed = derive_seed("validation", version.sha256, version.pk)
    outcomes: list[GameOutcome] = []
    verdict = Verdict(None)
    with tempfile.TemporaryDirectory(prefix="cucumbers-validate-") as folder:
        path = Path(folder) / "bot.py"
        with version.source.open("rb") as source:
            path.write_bytes(source.read())
        # The sandbox runs bots as an unprivileged user: it must be able to read the file.
        Path(folder).chmod(0o755)
        path.chmod(0o644)
        specs = [BotSpec(str(path), f"{version.bot} v{version.number}"), *specs]
        runner = make_runner(runner_name, Limits())
        games = range(1, settings.VALIDATION_GAMES + 1)
        for outcome in play_match(rules, specs, runner, seed=seed, game_numbers=games):
            outcomes.append(outcome)
            mine = [f for f in outcome.faults if outcome.bots[f.seat] == CANDIDATE]
            if mine:
                verdict = Verdict(mine[0], outcome.outputs[mine[0].seat][-STDERR_TAIL_CHARS:])
                break
    return seed, specs, outcomes, verdict


def validate_version(version_id: int, sandbox: SandboxKind | None = None) -> str | None:
    """Validate one version; returns its new status, or None if another run has it."""
    if not claim(version_id):
        logger.info("version %s: not queued, nothing to do", version_id)
        return None
    kind = sandbox or current_sandbox()
    try:
        version = BotVersion.objects.select_related("bot__owner").get(pk=version_id)
        seed, specs, outcomes, verdict = play_validation(version, prepare_runner(kind))
        return record_verdict(version_id, kind, seed, specs, outcomes, verdict)
    except BaseException:
        release(version_id)
        raise


def record_verdict(
    version_id: int,
    kind: SandboxKind,
    seed: int,
    specs: list[BotSpec],
    outcomes: list[GameOutcome],
    verdict: Verdict,
) -> str | None:
    """The validation match and the version's new status, in one transaction."""
    with StoredFiles() as files, transaction.atomic():
        version = BotVersion.objects.select_for_update().get(pk=version_id)
        if version.status != VersionStatus.VALIDATING:
            return None  # requeued by the reaper or an admin meanwhile: that run decides
        bot = Bot.objects.select_for_update().get(pk=version.bot_id)
        entrants = [Entrant(specs[CANDIDATE].name, bot, version)]
        entrants += [Entrant(spec.name) for spec in specs[1:]]
        match = record_series(
            game=bot.game,
            kind=MatchKind.VALIDATION,
            seed=seed,
            sandbox=kind.value,
            entrants=entrants,
            outcomes=outcomes,
            files=files,
        )
        version.validation_match = match
        version.validated_at = timezone.now()
        fields = ["status", "validation_match", "validated_at"]
        if verdict.fault is not None:
            version.status = VersionStatus.REJECTED
            version.rejection_kind = RejectionKind(verdict.fault.kind.value)
            version.rejection_detail = verdict.fault.detail
            version.stderr_tail = verdict.output
            fields += ["rejection_kind", "rejection_detail", "stderr_tail"]
        else:
            promote(bot, version)
        version.save(update_fields=fields)
    logger.info("version %s: %s (match %s)", version_id, version.status, match.pk)
    return version.status


def promote(bot: Bot, version: BotVersion) -> None:
    """Make a version that passed the bot's active one, unless a newer one already is."""
    current = bot.active_version
    if current is not None and current.number > version.number:
        version.status = VersionStatus.RETIRED  # passed, but a newer version won the race
        return
    version.status = VersionStatus.ACTIVE
    if current is not None:
        BotVersion.objects.filter(pk=current.pk).update(status=VersionStatus.RETIRED)
    bot.active_version = version
    bot.games_since_version = 0  # a new version is provisional again (issue 5)
    bot.save(update_fields=["active_version", "games_since_version"])


def requeue_stale_validations() -> list[int]:
    """Versions left ``validating`` by a worker that died: queued again. Returns their ids."""
    cutoff = timezone.now() - timedelta(seconds=settings.VALIDATION_STALE_SECONDS)
    stale = list(
        BotVersion.objects.filter(
            status=VersionStatus.VALIDATING, validation_started_at__lt=cutoff
        ).values_list("pk", flat=True)
    )
    requeued = []
    for version_id in stale:
        if BotVersion.objects.filter(
            pk=version_id, status=VersionStatus.VALIDATING, validation_started_at__lt=cutoff
        ).update(status=VersionStatus.QUEUED, validation_started_at=None):
            requeued.append(version_id)
    return requeued
