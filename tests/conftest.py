"""Settings shared by every test tier.

Hypothesis's per-example deadline (200 ms by default) measures the machine's load as
much as the code: on a 2-core box running the services and a second test run, a
property that takes 150 ms idle fails now and then. Speed is measured in
``benchmarks/``, never in tests, so the deadline is off; everything else is
Hypothesis's default.
"""

from hypothesis import settings

settings.register_profile("memgate", deadline=None)
settings.load_profile("memgate")
