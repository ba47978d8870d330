"""The REST API under ``/api/``: leaderboard, bots, versions (upload), matches, replays,
tokens; OpenAPI schema at ``/api/schema/``, docs at ``/api/docs/``."""
