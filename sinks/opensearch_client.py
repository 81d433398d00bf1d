"""The OpenSearch client of :meth:`memgate.sinks.opensearch.OpenSearchStore.from_settings`:
URL, basic-auth login and TLS (``opensearch_verify_certs``, ``opensearch_ca_certs``), and the
one-line errors of a node that refuses the client: a login or a permission refused (HTTP
401/403), a certificate not trusted, TLS spoken to a plain port or plain HTTP to a TLS one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memgate.core.errors import AuthenticationError, ConfigError, MissingExtra
from memgate.core.transports import pem_file

try:
    from opensearchpy import OpenSearch
    from opensearchpy.exceptions import ConnectionError as OSConnectionError
    from opensearchpy.exceptions import SerializationError, SSLError
    from opensearchpy.serializer import JSONSerializer
except ImportError as exc:
    raise MissingExtra("opensearch", "the OpenSearch retrieval store", exc.name) from exc

if TYPE_CHECKING:
    from memgate.core.settings import Settings

__all__ = [
    "FastJSON", "PermissionRefused", "connection_reason", "opensearch_client",
    "opensearch_client_kwargs", "refusal", "tls_refusal",
]  # fmt: skip


class FastJSON(JSONSerializer):
    """The client's JSON, answers parsed by orjson when it is installed (the same values:
    floats are read correctly rounded by both; about 6 times faster on answers holding
    facts' vectors, 768 floats each). Requests are written as before (stdlib ``json``)."""

    def __init__(self) -> None:
        try:
            import orjson
        except ImportError:  # the stdlib parser
            self._loads = None
        else:
            self._loads = orjson.loads

    def loads(self, s: str) -> Any:
        if self._loads is None:
            return super().loads(s)
        try:
            return self._loads(s)
        except (ValueError, TypeError) as e:
            raise SerializationError(s, e) from e


class PermissionRefused(AuthenticationError):
    """The node took the login but refused the action (HTTP 403).

    ``refused`` is the message without its advice (which node, user, action, index and the
    node's reason), for a caller that knows better what to advise.
    """

    def __init__(self, refused: str, advice: str) -> None:
        super().__init__(f"{refused}: {advice}")
        self.refused = refused


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
    return OpenSearch(**opensearch_client_kwargs(settings), serializer=FastJSON())


def refusal(
    status: int, reason: str, what: str, index: str, where: str, username: str | None
) -> AuthenticationError | None:
    """The error of a login (401) or a permission (403) that the node refused; else None.

    ``where`` names the node (``OpenSearch at https://...``, its password masked); ``reason``
    is the node's (it names the user and the action, never a password).
    """
    if status == 401 and username is None:
        return AuthenticationError(
            f"{where} requires a login (HTTP 401): set MEMGATE_OPENSEARCH_USERNAME and "
            "MEMGATE_OPENSEARCH_PASSWORD"
        )
    if status == 401:
        return AuthenticationError(
            f"{where} refused the login of user {username!r} (HTTP 401): check "
            "MEMGATE_OPENSEARCH_USERNAME and MEMGATE_OPENSEARCH_PASSWORD"
        )
    if status == 403:
        who = f"user {username!r}" if username else "a client without a login"
        detail = f"HTTP 403: {reason}" if reason else "HTTP 403"
        return PermissionRefused(
            f"{where} does not allow {who} to {what} on index {index} ({detail})",
            "point MEMGATE_OPENSEARCH_INDEX at an index the user's role covers (memgate-* in "
            "deploy/compose.yaml) or grant the role this index",
        )
    return None


def tls_refusal(exc: OSConnectionError, where: str, url: str) -> ConfigError | None:
    """The error of a TLS handshake that cannot succeed by retrying; else None."""
    if not isinstance(exc, SSLError):
        return None
    text = str(exc)
    if "CERTIFICATE_VERIFY_FAILED" in text:
        why = text.split("certificate verify failed: ", 1)[-1].split(" (_ssl", 1)[0]
        return ConfigError(
            f"{where} presented a certificate this client does not trust ({why}): set "
            "MEMGATE_OPENSEARCH_CA_CERTS to the CA that signed it and connect by a host name "
            "the certificate names"
        )
    plain = " (it answers in plain HTTP?)" if "WRONG_VERSION_NUMBER" in text else ""
    return ConfigError(
        f"TLS with {where} failed{plain}: check that MEMGATE_OPENSEARCH_URL ({url}) names "
        "its HTTPS port, or use http:// for a node without TLS"
    )


def connection_reason(exc: OSConnectionError, where: str, url: str) -> str:
    """Why a request got no answer, as one line (retried: the node may be restarting)."""
    text = str(exc)
    if "RemoteDisconnected" in text or "Connection aborted" in text:
        hint = ""
        if url.lower().startswith("http://"):
            hint = (
                ": if it serves HTTPS (a TLS port drops plain HTTP), use https:// in "
                "MEMGATE_OPENSEARCH_URL"
            )
        return f"{where} closed the connection without an answer{hint}"
    return f"connection error: {text}"
