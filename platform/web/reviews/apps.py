from __future__ import annotations

from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    """Move reviews: asked for on the site or the API, computed by arena workers (a job
    kind of its own on the broker, never on the web process), recorded by the platform's
    worker."""

    name = "web.reviews"
    label = "reviews"
    verbose_name = "Move reviews"
