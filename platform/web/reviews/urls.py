from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("matches/<int:match_id>/reviews/", views.review_ask, name="review-ask"),
    path(
        "matches/<int:match_id>/reviews/<int:participant>/",
        views.review_detail,
        name="review-detail",
    ),
]
