"""Reusable contract tests: one class per store protocol, subclassed per backend.

The modules are registered for pytest's assertion rewriting before they are
imported, so a failing contract assertion shows its operands.
"""

import pytest

pytest.register_assert_rewrite("tests.contracts.retrieval", "tests.contracts.isolation")
