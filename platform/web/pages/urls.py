from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
    path("leaderboard/<str:game>/", views.leaderboard, name="leaderboard-game"),
]
