"""``/api/matches/{match_pk}/reviews/``: ask for a move review of your bot's decisions in a
match (``POST``, JSON ``{"participant": N}``: 202 when it is queued, 200 when it already
was or is done; refused with 429 ``too_many_reviews`` beyond ``REVIEWS_PER_DAY``), and
read it (``GET .../reviews/{participant}/``): its status, then each game's review
(``cucumbers-review/1``, as ``cucumbers review --json`` prints it). The owner's and staff's
only: anyone else gets a 404 for a review, a 403 for an ask."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import generics, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from web.reviews.access import visible_match, visible_review
from web.reviews.asking import ReviewError, ask_review
from web.reviews.models import Review, ReviewStatus
from web.reviews.presenting import summary
from web.reviews.views import method_url
from web.users import signed_in

from .errors import Refused
from .fields import JsonInteger

#: The largest participant index a body may name (a table has at most a handful).
LARGEST_PARTICIPANT = 32767


class NewReviewSerializer(serializers.Serializer[dict[str, object]]):
    """A review asked for (``NewReviewRequest`` in the schema)."""

    participant = JsonInteger(
        min_value=0,
        max_value=LARGEST_PARTICIPANT,
        help_text="your bot's index in the match (its participants' index)",
    )


@extend_schema_field(OpenApiTypes.OBJECT)
class ResultField(serializers.JSONField):
    """The games' reviews: ``{"games": [{"number", "seat", "review"}]}``, ``review`` as
    ``cucumbers review --json`` prints it; null until done."""


class ReviewSerializer(serializers.ModelSerializer[Review]):
    status = serializers.ChoiceField(choices=ReviewStatus.choices, read_only=True)
    url = serializers.SerializerMethodField(help_text="the review's page (an absolute URL)")
    method = serializers.SerializerMethodField(
        help_text="how the estimate is made, and its limits (an absolute URL)"
    )
    decisions = serializers.SerializerMethodField(
        help_text="decisions with a choice, over the games (null until done)"
    )
    regret = serializers.SerializerMethodField(
        help_text="their regret in all, in the game's units (null until done)"
    )
    result = ResultField(read_only=True, allow_null=True)

    class Meta:
        model = Review
        fields = [
            "id",
            "match",
            "participant",
            "status",
            "requested_at",
            "finished_at",
            "deals",
            "seed",
            "error",
            "decisions",
            "regret",
            "url",
            "method",
            "result",
        ]
        read_only_fields = fields

    def _absolute(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    def get_url(self, review: Review) -> str:
        return self._absolute(reverse("review-detail", args=[review.match_id, review.participant]))

    def get_method(self, review: Review) -> str:
        return self._absolute(method_url())

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_decisions(self, review: Review) -> int | None:
        found = summary(review)
        return found.decisions if found is not None else None

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_regret(self, review: Review) -> float | None:
        found = summary(review)
        return round(found.regret, 3) if found is not None else None


class ReviewListView(generics.GenericAPIView[Any]):
    """Ask for a move review of your bot's decisions in a finished match (quota per day)."""

    permission_classes = [permissions.IsAuthenticated]
    serializer_class = NewReviewSerializer

    @extend_schema(responses={202: ReviewSerializer, 200: ReviewSerializer})
    def post(self, request: Request, match_pk: int) -> Response:
        data = NewReviewSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        match = visible_match(request.user, match_pk)
        try:
            review, sent = ask_review(signed_in(request), match, data.validated_data["participant"])
        except ReviewError as error:
            raise Refused(error, request) from None
        body = ReviewSerializer(review, context={"request": request}).data
        return Response(body, status=status.HTTP_202_ACCEPTED if sent else status.HTTP_200_OK)


class ReviewView(generics.GenericAPIView[Any]):
    """One review of a participant of a match: yours (or staff's) to read."""

    serializer_class = ReviewSerializer
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, match_pk: int, participant: int) -> Response:
        review = visible_review(request.user, match_pk, participant)
        return Response(ReviewSerializer(review, context={"request": request}).data)
