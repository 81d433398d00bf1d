"""``python -m memgate.cli``: the same as the ``memgate`` console script."""

from memgate.cli import run

run()
