"""Settings shared by every test tier.

Hypothesis's per-example deadline (200 ms by default) measures the machine's load as
much as the code: on a 2-core box running the services and a second test run, a
property that takes 150 ms idle fails now and then. Speed is measured in
``benchmarks/``, never in tests, so the deadline is off; everything else is
Hypothesis's default.

The resolution tests' kit holds checks of its own (``resolver_kit.changed``): it is
registered for pytest's assertion rewriting before any test imports it, so a failing
check shows its operands.
"""

import pytest
from hypothesis import settings

pytest.register_assert_rewrite("tests.unit.stages.resolver_kit")

settings.register_profile("memgate", deadline=None)
settings.load_profile("memgate")
