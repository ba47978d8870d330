"""Sign-up, the account page (e-mail, closing the account), password reset, the public
profile and the API token page (log-in, log-out and password change are Django's own views
with our templates, see ``urls.py``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from web.bots.models import Bot
from web.notifications.forms import NoticeChoicesForm
from web.users import signed_in

from .closing import close_account
from .forms import CloseAccountForm, EmailChangeForm, SignUpForm, TokenForm
from .limits import spend
from .models import ApiToken


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("my-bots")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        # Per client: otherwise every per-user quota multiplies with throw-away accounts.
        if not spend(request, "signup", settings.SIGNUPS_PER_HOUR):
            form.add_error(
                None,
                "Too many accounts were created from your address in the last hour;"
                " please try again later.",
            )
            return render(request, "accounts/signup.html", {"form": form}, status=429)
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:  # lost a race for the name (or one that looks the same)
            form.add_error("username", "This name is taken, or looks too much like one that is.")
            return render(request, "accounts/signup.html", {"form": form}, status=409)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Create your first bot below.")
        return redirect("bot-create")
    return render(request, "accounts/signup.html", {"form": form})


def profile(request: HttpRequest, username: str) -> HttpResponse:
    owner = get_object_or_404(User, username=username, is_active=True)
    bots = (
        Bot.objects.filter(owner=owner)
        .select_related("active_version")
        .prefetch_related("versions")  # Bot.standing reads them
        .order_by("name")
    )
    return render(request, "accounts/profile.html", {"owner": owner, "bots": bots})


@never_cache  # the new token is in this one response: no cache, proxy or back button keeps it
@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    form = TokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        _, new_token = ApiToken.issue(user, form.cleaned_data["name"])
        form = TokenForm()
    rows = ApiToken.objects.filter(user=user)
    # Rendered, not redirected: the token is shown in this one response and never again.
    context = {"form": form, "tokens": rows, "new_token": new_token}
    context["site"] = request.build_absolute_uri("/").rstrip("/")
    return render(request, "accounts/tokens.html", context)


@login_required
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    row = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    row.revoke()
    messages.success(request, f"Token “{row.name}” revoked.")
    return redirect("tokens")


@never_cache
@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The signed-in user's account: e-mail, password, tokens, and closing the account."""
    user = signed_in(request)
    email_form = EmailChangeForm(user, initial={"email": user.email})
    if request.method == "POST":
        email_form = EmailChangeForm(user, request.POST)
        if email_form.is_valid():
            user.email = email_form.cleaned_data["email"]
            user.save(update_fields=["email"])
            messages.success(request, "Your e-mail address is saved.")
            return redirect("account")
    context = {
        "email_form": email_form,
        "notices_form": NoticeChoicesForm.for_user(user.pk),
        "close_form": CloseAccountForm(user),
        "bots": user.bots.count(),
    }
    return render(request, "accounts/account.html", context)


@login_required
@require_POST
def close(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    form = CloseAccountForm(user, request.POST)
    if not form.is_valid():
        context: dict[str, object] = {
            "email_form": EmailChangeForm(user, initial={"email": user.email}),
            "notices_form": NoticeChoicesForm.for_user(user.pk),
            "close_form": form,
            "bots": user.bots.count(),
        }
        return render(request, "accounts/account.html", context, status=400)
    close_account(user)
    logout(request)
    messages.success(request, "Your account is closed and your bots are deleted.")
    return redirect("leaderboard")


class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset (one-time links by e-mail; nothing says whether an address
    has an account), limited per client and hour so that it cannot bomb an inbox."""

    def form_valid(self, form: Any) -> HttpResponse:
        if not spend(self.request, "password-reset", settings.PASSWORD_RESETS_PER_HOUR):
            form.add_error(
                None, "Too many reset requests from your address; please try again later."
            )
            return self.render_to_response(self.get_context_data(form=form), status=429)
        # A mail server that is down is logged by Django's form and answered as a success:
        # an error would tell that the address has an account.
        return super().form_valid(form)
