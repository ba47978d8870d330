"""Matches: a series of games between bots, their participants and gzip-compressed replays.
Every kind of match (validation, ladder, challenge) is recorded here; the pipeline that
plays them is web.pipeline."""
