"""Accounts: sign-up, log-in and password change (Django auth), profiles, API tokens."""
