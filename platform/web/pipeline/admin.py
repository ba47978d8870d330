"""Staff's view of matches: read-only but for what the pipeline lets staff do (requeue a
failed match, through :func:`web.pipeline.transitions.requeue`). A match's status is never
edited here: only the pipeline's moves write it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from web.matches.models import Match, MatchGame, MatchStatus, Participant

from . import transitions
from .dispatch import send_match_on_commit


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
    fields = ("number", "seed", "placement", "faults", "replay_size")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


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
        "seed",
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

    # A finished match is the record of what was played, and ratings follow from it: shown,
    # never edited or deleted here.
    def get_readonly_fields(self, request: HttpRequest, obj: Match | None = None) -> Any:
        if obj is not None and obj.status == MatchStatus.FINISHED:
            return [field.name for field in Match._meta.fields]
        return super().get_readonly_fields(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Match | None = None) -> bool:
        if obj is not None and obj.status == MatchStatus.FINISHED:
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
