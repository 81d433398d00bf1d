"""The fault suite uses the integration tier's fixtures (real services, one run id per test,
the test process capped at the BLAS threads of a memgate process)."""

from tests.integration.conftest import memgate_process, run_id, services

__all__ = ["memgate_process", "run_id", "services"]
