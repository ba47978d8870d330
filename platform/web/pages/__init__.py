"""Pages: the leaderboards and the site's shared templates."""
