"""Is the Kafka cluster answering? One metadata request, bounded by a short timeout.

``/ready`` of ``memgate serve`` with ``write_mode = "kafka"``: the writes of the
service go to the input topic, so a broker that does not answer makes the
service unready, as a store that does not answer does. The probe opens a
connection to a bootstrap broker and sends one ``Metadata`` request (what every
Kafka client does first); the whole probe, over every bootstrap address, ends
within ``timeout_s`` (a broker that accepts the connection and never answers
counts as not answering). It needs the ``kafka`` extra (aiokafka), as
``write_mode = "kafka"`` does anyway.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from typing import Any

from memgate.core.errors import MemgateError
from memgate.core.settings import Settings, mask_secrets

__all__ = ["KafkaNotAnswering", "kafka_check", "probe_kafka"]


class KafkaNotAnswering(MemgateError):
    """No bootstrap broker answered a metadata request in time."""


async def _probe(bootstrap: str, timeout_s: float, security: dict[str, Any]) -> int:
    from aiokafka.conn import collect_hosts, create_conn
    from aiokafka.errors import KafkaError
    from aiokafka.protocol.metadata import MetadataRequest

    where = mask_secrets(bootstrap)
    problems: list[str] = []
    try:
        async with asyncio.timeout(timeout_s):
            for host, port, _ in collect_hosts(bootstrap, randomize=False):
                try:
                    conn = await create_conn(
                        host, port, client_id="memgate-ready",
                        request_timeout_ms=max(1, int(timeout_s * 1000)), **security,
                    )  # fmt: skip
                except (OSError, KafkaError) as exc:
                    problems.append(f"{host}:{port}: {type(exc).__name__}: {exc}")
                    continue
                try:
                    metadata = await conn.send(MetadataRequest([]))
                except KafkaError as exc:
                    problems.append(f"{host}:{port}: {type(exc).__name__}: {exc}")
                    continue
                finally:
                    conn.close()
                return len(metadata.brokers)
    except TimeoutError:
        raise KafkaNotAnswering(
            f"no Kafka broker of {where} answered a metadata request within {timeout_s:g} s"
        ) from None
    detail = "; ".join(problems) or "no address"
    raise KafkaNotAnswering(f"no Kafka broker of {where} answered: {mask_secrets(detail)}"[:300])


def _security(settings: Settings | None) -> dict[str, Any]:
    """The TLS and SASL arguments of a connection, as every other Kafka client of memgate
    gets them (:func:`memgate.streams.kafka_client.kafka_client_kwargs`)."""
    if settings is None:
        return {}
    from memgate.streams.kafka_client import kafka_client_kwargs

    out = kafka_client_kwargs(settings)
    out.pop("bootstrap_servers", None)
    return out


def probe_kafka(bootstrap: str, timeout_s: float, settings: Settings | None = None) -> int:
    """The number of brokers the cluster reports; :class:`KafkaNotAnswering` when no
    bootstrap broker answers within ``timeout_s`` seconds. Connects with the TLS and SASL
    of ``settings`` (plain when None). Blocking; safe to call from a thread that runs an
    event loop (the probe then runs on a thread of its own)."""
    security = _security(settings)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_probe(bootstrap, timeout_s, security))
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="memgate-kafka") as pool:
        return pool.submit(asyncio.run, _probe(bootstrap, timeout_s, security)).result()


def kafka_check(settings: Settings) -> Callable[[], int]:
    """A readiness check (:class:`memgate.streams.health.Readiness`) of the cluster the
    settings name, connected as they say, within ``kafka_ready_timeout_s``."""

    def check() -> int:
        return probe_kafka(settings.kafka_bootstrap, settings.kafka_ready_timeout_s, settings)

    return check
