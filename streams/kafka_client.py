"""Every Kafka client memgate opens takes its connection settings from here.

:func:`kafka_client_kwargs` gives an aiokafka producer, consumer or admin client the
bootstrap servers, the security protocol, the SASL login and the TLS context;
:func:`faust_broker_kwargs` gives the Faust app its broker URL and the same as
``broker_credentials``. ``tests/unit/streams/test_kafka_client.py`` checks that every
client construction in memgate's source goes through one of them.

:func:`start_client` starts a client and, when it cannot bootstrap, says why in one line
(a refused login, an untrusted certificate, a listener speaking another protocol, no
broker at all), which aiokafka only logs. :func:`membership` gives the Faust app its
group membership (session timeout, static ``group.instance.id``) and :func:`faust_datadir`
its state folder.
"""

from __future__ import annotations

import hashlib
import ssl
from collections.abc import Awaitable, Callable
from socket import gethostname
from typing import Any

from memgate.core.errors import AuthenticationError, ConfigError, MemgateError, TransientError
from memgate.core.settings import Settings, mask_secrets
from memgate.core.transports import kafka_ssl_context, uses_sasl

__all__ = [
    "faust_broker_kwargs",
    "faust_datadir",
    "instance_name",
    "kafka_client_kwargs",
    "kafka_unreachable",
    "membership",
    "start_client",
]

PROBE_TIMEOUT_MS = 10_000


def kafka_client_kwargs(settings: Settings) -> dict[str, Any]:
    """``bootstrap_servers`` and the security keyword arguments of an aiokafka client."""
    out: dict[str, Any] = {
        "bootstrap_servers": settings.kafka_bootstrap,
        "security_protocol": settings.kafka_security_protocol,
    }
    ctx = kafka_ssl_context(settings)
    if ctx is not None:
        out["ssl_context"] = ctx
    if uses_sasl(settings.kafka_security_protocol):
        assert settings.kafka_sasl_password is not None  # the settings check it
        out["sasl_mechanism"] = settings.kafka_sasl_mechanism
        out["sasl_plain_username"] = settings.kafka_sasl_username
        out["sasl_plain_password"] = settings.kafka_sasl_password.get_secret_value()
    return out


def faust_broker_kwargs(settings: Settings) -> dict[str, Any]:
    """``broker`` and ``broker_credentials`` of the Faust app (None for PLAINTEXT)."""
    import faust

    proto = settings.kafka_security_protocol
    ctx = kafka_ssl_context(settings)
    credentials: Any = None
    if uses_sasl(proto):
        assert settings.kafka_sasl_password is not None  # the settings check it
        # SASL_SSL when given a TLS context, SASL_PLAINTEXT without
        credentials = faust.SASLCredentials(
            username=settings.kafka_sasl_username,
            password=settings.kafka_sasl_password.get_secret_value(),
            ssl_context=ctx,
            mechanism=settings.kafka_sasl_mechanism,
        )
    elif ctx is not None:
        credentials = faust.SSLCredentials(ctx)
    return {"broker": f"kafka://{settings.kafka_bootstrap}", "broker_credentials": credentials}


async def start_client(
    start: Callable[[], Awaitable[Any]],
    close: Callable[[], Awaitable[Any]],
    settings: Settings,
) -> None:
    """``await start()``; when the client cannot bootstrap, ``close()`` it and raise the
    one-line reason (:func:`kafka_unreachable`)."""
    from aiokafka.errors import KafkaConnectionError

    try:
        await start()
    except KafkaConnectionError:
        await close()
        raise await kafka_unreachable(settings) from None


def _first_broker(bootstrap: str) -> tuple[str, int]:
    first = bootstrap.split(",")[0].strip().rsplit("@", 1)[-1]
    host, _, port = first.rpartition(":")
    return host.strip("[]") or first, int(port) if port.isdigit() else 9092


async def kafka_unreachable(settings: Settings) -> MemgateError:
    """Why the first bootstrap broker cannot be used, found by connecting to it once with
    the clients' own settings."""
    from aiokafka.conn import create_conn
    from aiokafka.errors import SaslAuthenticationFailed, UnsupportedSaslMechanismError

    host, port = _first_broker(settings.kafka_bootstrap)
    where = f"Kafka at {mask_secrets(f'{host}:{port}')}"
    proto = settings.kafka_security_protocol
    kwargs = kafka_client_kwargs(settings)
    del kwargs["bootstrap_servers"]
    try:
        conn = await create_conn(host, port, request_timeout_ms=PROBE_TIMEOUT_MS, **kwargs)
    except SaslAuthenticationFailed:
        return AuthenticationError(
            f"{where} refused the login of user {settings.kafka_sasl_username!r} "
            f"({settings.kafka_sasl_mechanism}): check MEMGATE_KAFKA_SASL_USERNAME and "
            "MEMGATE_KAFKA_SASL_PASSWORD"
        )
    except UnsupportedSaslMechanismError:
        return ConfigError(
            f"{where} does not offer SASL mechanism {settings.kafka_sasl_mechanism}: set "
            "MEMGATE_KAFKA_SASL_MECHANISM to one its listener enables"
        )
    except ssl.SSLCertVerificationError as exc:
        return ConfigError(
            f"{where} presented a certificate this client does not trust "
            f"({exc.verify_message}): set MEMGATE_KAFKA_SSL_CAFILE to the CA that signed it "
            "and connect by a host name the certificate names"
        )
    except ssl.SSLError as exc:
        return ConfigError(
            f"TLS with {where} failed ({exc.reason or exc}): is its listener {proto}? "
            "check MEMGATE_KAFKA_SECURITY_PROTOCOL and MEMGATE_KAFKA_BOOTSTRAP"
        )
    except TimeoutError:
        return TransientError(
            f"{where} did not answer within {PROBE_TIMEOUT_MS // 1000} s: is its listener "
            f"{proto}? check MEMGATE_KAFKA_SECURITY_PROTOCOL and MEMGATE_KAFKA_BOOTSTRAP"
        )
    except OSError as exc:
        return TransientError(
            f"cannot reach {where} ({exc.strerror or exc}): start the broker or fix "
            "MEMGATE_KAFKA_BOOTSTRAP"
        )
    except Exception as exc:  # a broker answer aiokafka could not use
        return TransientError(
            f"{where} closed the connection ({type(exc).__name__}): is its listener "
            f"{proto}? check MEMGATE_KAFKA_SECURITY_PROTOCOL and MEMGATE_KAFKA_BOOTSTRAP"
        )
    conn.close()
    return TransientError(
        f"{where} accepted a {proto} connection, but the client could not bootstrap from "
        "MEMGATE_KAFKA_BOOTSTRAP: check the brokers' advertised listeners, then try again"
    )


def instance_name(s: Settings) -> str:
    """This worker's name in its group: ``worker_instance``, or the host name and a digest
    of the data directory's path. A restarted worker (same host, same data dir) comes back
    under the same name; two workers on one host have two data dirs (each holds its own
    audit store), hence two names. Two members under one ``group.instance.id`` fence each
    other: each one's commits fail while both still process, and events are skipped."""
    if s.worker_instance:
        return s.worker_instance
    where = hashlib.sha256(str(s.data_dir.resolve()).encode()).hexdigest()[:8]
    return f"{gethostname()}-{where}"


def membership(s: Settings) -> dict[str, Any]:
    """Group membership settings: a short session timeout, so that a dead worker's
    partitions move on within seconds, and static membership (``group.instance.id``
    ``<worker_id>.<instance_name>``), so that a restarted worker gets its partitions back
    without a rebalance."""
    session = float(s.kafka_session_timeout_s)
    out: dict[str, Any] = {
        "broker_session_timeout": session,
        "broker_heartbeat_interval": min(3.0, session / 3.0),
    }
    if s.kafka_static_membership:
        out["consumer_group_instance_id"] = f"{s.worker_id}.{instance_name(s)}"
    return out


def faust_datadir(s: Settings) -> str:
    """Faust's own state folder, under the data dir (Faust's default is ``<app id>-data``
    in the current folder); braces escaped, as Faust formats the value."""
    return str(s.data_dir / "faust").replace("{", "{{").replace("}", "}}")
