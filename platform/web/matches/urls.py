from __future__ import annotations

from django.urls import path

from . import arena_views, views

urlpatterns = [
    path("bots/<int:bot_id>/challenge/", arena_views.challenge, name="bot-challenge"),
    path("arena/", arena_views.arena, name="arena"),
    path("arena/status/", arena_views.arena_status, name="arena-status"),
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path(
        "matches/<int:match_id>/games/<int:number>/replay.json.gz",
        views.replay_download,
        name="replay-download",
    ),
]
