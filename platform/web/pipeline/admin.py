"""Staff's view of matches: read-only but for what the pipeline lets staff do (requeue a
failed match, through :func:`web.pipeline.transitions.requeue`). A match's status is never
edited here: only the pipeline's moves write it.

Staff see no more of a deal than anyone: a match's stored seed never, its published seed,
its games' seeds, placements and faults only once its results are public (a held rotation's
fault details could carry the cards a bot saw)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from web.matches.models import Match, MatchGame, MatchStatus, Participant

from . import transitions
from .dispatch import send_match_on_commit

#: What a field of a match not yet public shows in the admin.
HELD = "held until its deal set is played"


class ParticipantInline(admin.TabularInline):  # type: ignore[type-arg]  # not generic at run time
    model = Participant
    fields = ("index", "name", "bot", "version", "placement", "mean_place", "wins", "faults")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class GameInline(admin.TabularInline):  # type: ignore[type-arg]  # not generic at run time
    model = MatchGame
    fields = ("number", "game_seed", "game_placement", "game_faults", "replay_size")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="seed")
    def game_seed(self, game: MatchGame) -> object:
        return game.seed if game.match.results_public else HELD

    @admin.display(description="placement")
    def game_placement(self, game: MatchGame) -> object:
        return game.placement if game.match.results_public else HELD

    @admin.display(description="faults")
    def game_faults(self, game: MatchGame) -> object:
        return game.faults if game.match.results_public else HELD


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # not generic at run time
    list_display = (
        "id",
        "kind",
        "game",
        "status",
        "rated",
        "created_at",
        "finished_at",
        "attempts",
    )
    list_filter = ("status", "kind", "game", "rated")
    readonly_fields = (
        "status",
        "failure_reason",
        "sent_at",
        "retry_at",
        "published_seed",
        "created_at",
        "started_at",
        "finished_at",
        "attempts",
        "sandbox",
        "worker",
        "arena_host",
    )
    inlines = [ParticipantInline, GameInline]
    actions = ["requeue_failed"]
    # The stored seed is secret (web/matches/deals.py); the deal seed is published with
    # the results.
    exclude = ("seed", "deal_seed")

    @admin.display(description="deal seed")
    def published_seed(self, match: Match) -> object:
        return match.deal_seed if match.results_public else HELD

    # A finished match is the record of what was played, and ratings follow from it: shown,
    # never edited or deleted here.
    def get_readonly_fields(self, request: HttpRequest, obj: Match | None = None) -> Any:
        if obj is not None and obj.status in (MatchStatus.FINISHED, MatchStatus.HELD):
            hidden = {"seed", "deal_seed"}
            fields = [field.name for field in Match._meta.fields if field.name not in hidden]
            return [*fields, "published_seed"]
        return super().get_readonly_fields(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        if obj is not None and obj.status in (MatchStatus.FINISHED, MatchStatus.HELD):
            return False
        return super().has_delete_permission(request, obj)

    @admin.action(description="Requeue the selected failed matches")
    def requeue_failed(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        # Only failed ones go back; each gets its task again once the UPDATE committed.
        failed = list(queryset.filter(status=MatchStatus.FAILED).values_list("pk", flat=True))
        requeued = transitions.requeue(failed)
        for match_id in requeued:
            send_match_on_commit(match_id)
        self.message_user(request, f"{len(requeued)} failed match(es) queued again.")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # matches are queued by the pipeline's kinds, never by hand
