from __future__ import annotations

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from . import views
from .arena import ArenaView
from .reviews import ReviewListView, ReviewView
from .stats import BotStatsView
from .tournaments import EntryListView, EntryView, TournamentViewSet

router = DefaultRouter()
router.register("bots", views.BotViewSet, basename="api-bot")
router.register(r"bots/(?P<bot_pk>\d+)/versions", views.BotVersionViewSet, basename="api-version")
router.register("matches", views.MatchViewSet, basename="api-match")
router.register("tokens", views.TokenViewSet, basename="api-token")
router.register("tournaments", TournamentViewSet, basename="api-tournament")

#: Swagger UI: its script is a file of the site (the split view, not an inline one), but it
#: styles its own elements inline; on this page only, whose content is our schema.
api_docs = csp_update({"style-src": [UNSAFE_INLINE]})(
    SpectacularSwaggerSplitView.as_view(url_name="api-schema")
)

urlpatterns = [
    path("leaderboard/", views.LeaderboardView.as_view(), name="api-leaderboard"),
    path("arena/", ArenaView.as_view(), name="api-arena"),
    path("uploads/", views.UploadView.as_view(), name="api-upload"),
    path("challenges/", views.ChallengeView.as_view(), name="api-challenge"),
    path("bots/<int:bot_pk>/stats/", BotStatsView.as_view(), name="api-bot-stats"),
    path(
        "tournaments/<int:tournament_pk>/entries/",
        EntryListView.as_view(),
        name="api-tournament-entries",
    ),
    path(
        "tournaments/<int:tournament_pk>/entries/<int:entry_pk>/",
        EntryView.as_view(),
        name="api-tournament-entry",
    ),
    path("matches/<int:match_pk>/reviews/", ReviewListView.as_view(), name="api-match-reviews"),
    path(
        "matches/<int:match_pk>/reviews/<int:participant>/",
        ReviewView.as_view(),
        name="api-match-review",
    ),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", api_docs, name="api-docs"),
    path("", include(router.urls)),
]
