from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("matches/", views.match_list, name="match-list"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path(
        "matches/<int:match_id>/games/<int:number>/replay.json.gz",
        views.replay_download,
        name="replay-download",
    ),
]
