"""Secured transports: which Kafka, OpenSearch and ClickHouse settings go together, and the
TLS context of the Kafka clients (standard library only).

The clients themselves are built in one place each: every Kafka client through
:mod:`memgate.streams.kafka_client`, OpenSearch in :mod:`memgate.sinks.opensearch_client`,
ClickHouse in :meth:`memgate.sinks.audit.ClickHouseAudit.server`.

>>> from memgate.core.settings import load_settings
>>> s = load_settings(data_dir="/tmp/mg-doc", kafka_security_protocol="SASL_SSL",
...                   kafka_sasl_username="memgate", kafka_sasl_password="pw")
>>> s.kafka_sasl_mechanism, kafka_ssl_context(s).verify_mode.name
('SCRAM-SHA-512', 'CERT_REQUIRED')
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from memgate.core.errors import ConfigError

if TYPE_CHECKING:
    from memgate.core.settings import Settings

__all__ = [
    "KafkaProtocol",
    "SaslMechanism",
    "kafka_ssl_context",
    "pem_file",
    "transport_problem",
    "uses_sasl",
    "uses_tls",
]

KafkaProtocol = Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
SaslMechanism = Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]


def uses_sasl(protocol: str) -> bool:
    return protocol.startswith("SASL_")


def uses_tls(protocol: str) -> bool:
    return protocol.endswith("SSL")


def _env(name: str) -> str:
    return f"MEMGATE_{name.upper()}"


def _kafka_problem(s: Settings) -> str | None:
    proto = s.kafka_security_protocol
    secret = s.kafka_sasl_password.get_secret_value() if s.kafka_sasl_password else None
    login = {"kafka_sasl_username": s.kafka_sasl_username, "kafka_sasl_password": secret}
    if uses_sasl(proto):
        missing = [k for k, v in login.items() if not v]
        if missing:
            return (
                f"kafka_security_protocol {proto} needs {' and '.join(missing)}: set "
                f"{' and '.join(_env(k) for k in missing)}"
            )
    else:
        given = [k for k, v in login.items() if v is not None]
        if given:
            return (
                f"{given[0]} is set but kafka_security_protocol is {proto}, which sends no "
                "login: set MEMGATE_KAFKA_SECURITY_PROTOCOL=SASL_SSL (or SASL_PLAINTEXT), "
                f"or unset {_env(given[0])}"
            )
    files = {
        "kafka_ssl_cafile": s.kafka_ssl_cafile,
        "kafka_ssl_certfile": s.kafka_ssl_certfile,
        "kafka_ssl_keyfile": s.kafka_ssl_keyfile,
    }
    if not uses_tls(proto):
        given = [k for k, v in files.items() if v is not None]
        if given:
            return (
                f"{given[0]} is set but kafka_security_protocol is {proto}, which does not "
                "use TLS: set MEMGATE_KAFKA_SECURITY_PROTOCOL=SSL or SASL_SSL, "
                f"or unset {_env(given[0])}"
            )
    if (s.kafka_ssl_certfile is None) != (s.kafka_ssl_keyfile is None):
        return "kafka_ssl_certfile and kafka_ssl_keyfile go together: set both or neither"
    return None


def _https_problem(name: str, url: str, ca_setting: str, ca: Path | None) -> str | None:
    if ca is not None and not url.lower().startswith("https://"):
        return (
            f"{ca_setting} is set but {name} is not an https:// URL: use https:// "
            f"(the TLS port), or unset {_env(ca_setting)}"
        )
    return None


def transport_problem(s: Settings) -> str | None:
    """The first inconsistent combination of transport settings, as one line; else None."""
    problem = _kafka_problem(s)
    if problem is None:
        problem = _https_problem(
            "opensearch_url", s.opensearch_url, "opensearch_ca_certs", s.opensearch_ca_certs
        )
    if problem is None and s.opensearch_ca_certs is not None and not s.opensearch_verify_certs:
        problem = (
            "opensearch_ca_certs is set but opensearch_verify_certs is false, so the CA "
            "would never be checked: set MEMGATE_OPENSEARCH_VERIFY_CERTS=true"
        )
    if problem is None:
        problem = _https_problem(
            "clickhouse_url", s.clickhouse_url, "clickhouse_ca_cert", s.clickhouse_ca_cert
        )
    return problem


def pem_file(setting: str, path: Path) -> str:
    """``path`` as a string, or a :class:`ConfigError` naming ``setting`` if it is no file."""
    try:
        ok = path.is_file()
    except OSError as exc:  # pragma: no cover - a path the system refuses to look at
        raise ConfigError(f"{setting} {path}: {exc.strerror or exc}") from None
    if not ok:
        raise ConfigError(
            f"{setting} {path} does not exist or is not a file: point {_env(setting)} at a "
            "PEM file (deploy/certs.sh makes development ones)"
        )
    return str(path)


def kafka_ssl_context(s: Settings) -> ssl.SSLContext | None:
    """The TLS context of every Kafka client (None for PLAINTEXT and SASL_PLAINTEXT).

    Verifies the broker's certificate and host name against ``kafka_ssl_cafile`` (or the
    system's CAs) and presents ``kafka_ssl_certfile`` when it is set.
    """
    if not uses_tls(s.kafka_security_protocol):
        return None
    cafile = None
    if s.kafka_ssl_cafile is not None:
        cafile = pem_file("kafka_ssl_cafile", s.kafka_ssl_cafile)
    try:
        ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=cafile)
    except ssl.SSLError as exc:
        raise ConfigError(
            f"kafka_ssl_cafile {cafile} holds no PEM certificate ({exc.reason or exc})"
        ) from None
    if s.kafka_ssl_certfile is not None and s.kafka_ssl_keyfile is not None:
        cert = pem_file("kafka_ssl_certfile", s.kafka_ssl_certfile)
        key = pem_file("kafka_ssl_keyfile", s.kafka_ssl_keyfile)
        try:
            ctx.load_cert_chain(cert, key)
        except ssl.SSLError as exc:
            raise ConfigError(
                f"kafka_ssl_certfile {cert} and kafka_ssl_keyfile {key} are not a PEM "
                f"certificate and its unencrypted key ({exc.reason or exc})"
            ) from None
    return ctx
