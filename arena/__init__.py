"""The arena: runs matches between uploaded bots.

- :mod:`arena.sandbox`: the Docker sandbox (one container per bot per match), its image and
  the reaper of leftover containers.
- ``python -m arena``: the command line the workers' code paths share (``image``, ``match``,
  ``reap``).
"""
