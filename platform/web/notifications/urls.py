from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("accounts/notices/", views.notice_choices, name="notice-choices"),
    path("notices/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
