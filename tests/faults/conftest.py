"""The fault suite uses the integration tier's fixtures (real services, one run id per test)."""

from tests.integration.conftest import run_id, services

__all__ = ["run_id", "services"]
