from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournament-list"),
    path("tournaments/<int:tournament_id>/", views.tournament_detail, name="tournament-detail"),
    path("tournaments/<int:tournament_id>/enter/", views.tournament_enter, name="tournament-enter"),
    path(
        "tournaments/<int:tournament_id>/entries/<int:entry_id>/withdraw/",
        views.tournament_withdraw,
        name="tournament-withdraw",
    ),
]
