"""A hostile bot that reads its opponents' hands when a deal comes back.

Legal play only, nothing touched outside its own process: it remembers every deal it has
seen (every dealt card is played before a round ends, so after a round it knows every hand)
and, when it is dealt a hand it has held or seen before, it knows the other hands of that
deal. Each opponent's card it then sees played counts as *predicted*. It prints its tally
after every round (``memory: recognised R hands, predicted P of S opponents' cards``), so a
test reads it from the bot's output. Uploaded as a source (``SOURCE``); never imported by
the platform.
"""

from __future__ import annotations

from pathlib import Path

#: The bot's source, as uploaded.
SOURCE = (Path(__file__).with_name("memorising_bot_source.py")).read_bytes()
