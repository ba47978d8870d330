"""The match pipeline: how a match is queued, sent, played by an arena worker, reported and
recorded. ``transitions`` is the one writer of a match's status; each kind of match is one
module in ``kinds/``; ``factory`` queues every match; ``dispatch`` sends jobs; ``running``
hears the arena (started, reports) and reaps what was lost; ``recording`` records a report
in one transaction. docs/arena.md ("Where to change what") maps it in full."""
