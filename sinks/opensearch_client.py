"""The OpenSearch client of :meth:`memgate.sinks.opensearch.OpenSearchStore.from_settings`:
URL, basic-auth login and TLS (``opensearch_verify_certs``, ``opensearch_ca_certs``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memgate.core.errors import ConfigError, MissingExtra
from memgate.core.transports import pem_file

try:
    from opensearchpy import OpenSearch
except ImportError as exc:
    raise MissingExtra("opensearch", "the OpenSearch retrieval store", exc.name) from exc

if TYPE_CHECKING:
    from memgate.core.settings import Settings

__all__ = ["opensearch_client", "opensearch_client_kwargs"]


def opensearch_client_kwargs(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of the client (``http_auth`` holds the password)."""
    auth: tuple[str, str] | None = None
    if settings.opensearch_username is not None:
        if settings.opensearch_password is None:
            raise ConfigError(
                "opensearch_username is set but opensearch_password is not; set both "
                "(MEMGATE_OPENSEARCH_USERNAME / MEMGATE_OPENSEARCH_PASSWORD) or neither"
            )
        auth = (settings.opensearch_username, settings.opensearch_password.get_secret_value())
    elif settings.opensearch_password is not None:
        raise ConfigError("opensearch_password is set but opensearch_username is not")
    out: dict[str, Any] = {
        "hosts": [settings.opensearch_url],
        "http_auth": auth,
        "verify_certs": settings.opensearch_verify_certs,
        "max_retries": 0,  # the store retries, with backoff
        "retry_on_timeout": False,
        "timeout": 30,
    }
    if settings.opensearch_ca_certs is not None:
        out["ca_certs"] = pem_file("opensearch_ca_certs", settings.opensearch_ca_certs)
    return out


def opensearch_client(settings: Settings) -> OpenSearch:
    return OpenSearch(**opensearch_client_kwargs(settings))
