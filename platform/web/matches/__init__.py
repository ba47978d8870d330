"""Matches: a series of games between bots, their participants and gzip-compressed replays.
Validation matches are recorded here today; the ladder (issue 5) adds rated ones."""
