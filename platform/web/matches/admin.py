from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from web.pipeline.dispatch import send_match_on_commit

from .models import Match, MatchGame, MatchStatus, Participant


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
        count = Match.requeue(failed)
        for match_id in failed:
            send_match_on_commit(match_id)
        self.message_user(request, f"{count} failed match(es) queued again.")
