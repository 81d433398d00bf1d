"""Every Kafka client memgate opens connects as the settings say (kafka_client_kwargs,
faust_broker_kwargs), and inconsistent transport settings are one-line errors."""

from __future__ import annotations

import ast
import asyncio
import ssl
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth

from memgate.core.errors import ConfigError
from memgate.core.settings import Settings, load_settings
from memgate.streams.app import Worker, create_app
from memgate.streams.kafka_client import faust_broker_kwargs, kafka_client_kwargs
from memgate.streams.metrics import Metrics
from tests.unit.streams.conftest import Gate
from tests.unit.tls_certs import ROOT, make_certs

SECRET = "kafka-Sekr1t-pw"
#: memgate's own source (memgate/streams, memgate/sinks, memgate/stages are links to these)
SOURCE_DIRS = ("memgate", "streams", "sinks", "stages")
KAFKA_CLIENTS = {"AIOKafkaProducer", "AIOKafkaConsumer", "AIOKafkaAdminClient"}


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("certs"))


def sasl_ssl(tmp_path: Path, certs: Path, **kw: Any) -> Settings:
    base: dict[str, Any] = {
        "data_dir": tmp_path,
        "kafka_bootstrap": "kafka:9092",
        "kafka_security_protocol": "SASL_SSL",
        "kafka_sasl_username": "memgate",
        "kafka_sasl_password": SECRET,
        "kafka_ssl_cafile": certs / "ca.crt",
    }
    return load_settings(**{**base, **kw})


# -- every construction site goes through the helper -----------------------------------


def _callee(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Attribute):
        base = f.value.id if isinstance(f.value, ast.Name) else "?"
        return f"{base}.{f.attr}"
    return f.id if isinstance(f, ast.Name) else "?"


def _spreads(call: ast.Call, helper: str) -> bool:
    return any(
        k.arg is None and isinstance(k.value, ast.Call) and _callee(k.value) == helper
        for k in call.keywords
    )


def _source_files() -> list[Path]:
    files: list[Path] = []
    for d in SOURCE_DIRS:
        files += [p for p in (ROOT / d).rglob("*.py") if not any(x.is_symlink() for x in
                  [p, *p.parents] if x.is_relative_to(ROOT))]  # fmt: skip
    return files


def test_every_kafka_client_in_memgate_is_built_by_the_helper() -> None:
    sites: list[str] = []
    unsecured: list[str] = []
    for path in _source_files():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _callee(node).rsplit(".", 1)[-1]
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            if name in KAFKA_CLIENTS:
                sites.append(where)
                if not _spreads(node, "kafka_client_kwargs"):
                    unsecured.append(f"{where} {name}")
            elif _callee(node) == "faust.App":
                sites.append(where)
                if not _spreads(node, "faust_broker_kwargs"):
                    unsecured.append(f"{where} faust.App")
            own = any(k.arg in ("bootstrap_servers", "broker") for k in node.keywords)
            if own and path.name != "kafka_client.py":
                unsecured.append(f"{where} passes its own bootstrap servers")
    # the producer, ensure_topics, the lag reader's admin client and consumer, the app
    assert len(sites) >= 5, sites
    assert unsecured == []


# -- what the helper gives each client ---------------------------------------------------


def test_plaintext_is_the_default_and_sends_no_login(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path)
    assert kafka_client_kwargs(s) == {
        "bootstrap_servers": "127.0.0.1:19092", "security_protocol": "PLAINTEXT"
    }  # fmt: skip
    assert faust_broker_kwargs(s) == {"broker": "kafka://127.0.0.1:19092",
                                      "broker_credentials": None}  # fmt: skip


def test_sasl_ssl_reaches_every_aiokafka_client(tmp_path: Path, certs: Path) -> None:
    s = sasl_ssl(tmp_path, certs)
    kw = kafka_client_kwargs(s)
    ctx = kw["ssl_context"]
    assert isinstance(ctx, ssl.SSLContext)
    assert ctx.verify_mode == ssl.CERT_REQUIRED and ctx.check_hostname
    assert [c["subject"] for c in ctx.get_ca_certs()] == [
        ((("organizationName", "memgate-dev"),), (("commonName", "memgate development CA"),))
    ]

    async def clients() -> list[Any]:
        producer = AIOKafkaProducer(**kafka_client_kwargs(s))
        consumer = AIOKafkaConsumer(**kafka_client_kwargs(s), group_id=None)
        admin = AIOKafkaAdminClient(**kafka_client_kwargs(s))
        await producer.stop()
        await consumer.stop()
        await admin.close()
        return [producer.client, consumer._client, admin._client]

    for client in asyncio.run(clients()):
        assert client._bootstrap_servers == "kafka:9092"
        assert client._security_protocol == "SASL_SSL"
        assert client._sasl_mechanism == "SCRAM-SHA-512"
        assert client._sasl_plain_username == "memgate"
        assert client._sasl_plain_password == SECRET
        assert isinstance(client._ssl_context, ssl.SSLContext)


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        ("SASL_SSL", {"security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-256"}),
        ("SASL_PLAINTEXT", {"security_protocol": "SASL_PLAINTEXT", "ssl_context": None}),
        ("SSL", {"security_protocol": "SSL"}),
    ],
)
def test_the_faust_app_gets_the_same_transport(
    tmp_path: Path, certs: Path, protocol: str, expected: dict[str, Any]
) -> None:
    login = protocol.startswith("SASL")
    s = sasl_ssl(
        tmp_path, certs,
        kafka_security_protocol=protocol,
        kafka_sasl_mechanism="SCRAM-SHA-256",
        kafka_sasl_username="memgate" if login else None,
        kafka_sasl_password=SECRET if login else None,
        kafka_ssl_cafile=None if protocol == "SASL_PLAINTEXT" else certs / "ca.crt",
    )  # fmt: skip
    auth = credentials_to_aiokafka_auth(faust_broker_kwargs(s)["broker_credentials"])
    for k, v in expected.items():
        if protocol == "SASL_SSL" or k != "sasl_mechanism":
            assert auth[k] == v, k
    if login:
        assert auth["sasl_plain_username"] == "memgate"
        assert auth["sasl_plain_password"] == SECRET
    if protocol.endswith("SSL"):
        assert isinstance(auth["ssl_context"], ssl.SSLContext)
    assert SECRET not in repr(faust_broker_kwargs(s)["broker_credentials"])


def test_the_worker_app_is_created_with_the_credentials(gate: Gate, certs: Path) -> None:
    s = sasl_ssl(gate.settings.data_dir, certs, embedder="hashing")
    w = Worker(settings=s, pipeline=gate.pipeline(), retrieval=gate.retrieval,
               audit=gate.audit, metrics=Metrics())  # fmt: skip
    app = create_app(w)
    # the worker's own group and guarantees, not faust's defaults
    assert app.conf.id == s.worker_id
    assert app.conf.producer_acks == -1 and app.conf.topic_replication_factor == 1
    auth = credentials_to_aiokafka_auth(app.conf.broker_credentials)
    assert auth["security_protocol"] == "SASL_SSL"
    assert auth["sasl_mechanism"] == "SCRAM-SHA-512"
    assert auth["sasl_plain_password"] == SECRET


# -- settings that do not go together ---------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"kafka_sasl_password": None},
         "kafka_security_protocol SASL_SSL needs kafka_sasl_password: set "
         "MEMGATE_KAFKA_SASL_PASSWORD"),
        ({"kafka_sasl_username": None, "kafka_sasl_password": None},
         "kafka_security_protocol SASL_SSL needs kafka_sasl_username and kafka_sasl_password"),
        ({"kafka_sasl_password": ""}, "needs kafka_sasl_password"),
        ({"kafka_security_protocol": "SSL"},
         "kafka_sasl_username is set but kafka_security_protocol is SSL, which sends no login"),
        ({"kafka_security_protocol": "SASL_PLAINTEXT"},
         "kafka_ssl_cafile is set but kafka_security_protocol is SASL_PLAINTEXT, which does "
         "not use TLS"),
        ({"kafka_ssl_certfile": "/x/client.crt"},
         "kafka_ssl_certfile and kafka_ssl_keyfile go together"),
        ({"opensearch_ca_certs": "/x/ca.crt"},
         "opensearch_ca_certs is set but opensearch_url is not an https:// URL"),
        ({"opensearch_url": "https://os:9200", "opensearch_ca_certs": "/x/ca.crt",
          "opensearch_verify_certs": False},
         "opensearch_ca_certs is set but opensearch_verify_certs is false"),
        ({"clickhouse_ca_cert": "/x/ca.crt"},
         "clickhouse_ca_cert is set but clickhouse_url is not an https:// URL"),
    ],
)
def test_inconsistent_transport_settings_are_one_line_errors(
    tmp_path: Path, certs: Path, kw: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        sasl_ssl(tmp_path, certs, **kw)
    text = str(caught.value)
    assert message in text and "\n" not in text
    assert text.startswith("invalid settings (kafka_") or text.startswith(
        ("invalid settings (opensearch_", "invalid settings (clickhouse_")
    )
    assert SECRET not in text


def test_a_password_without_sasl_is_refused_not_ignored(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="kafka_sasl_password is set but "
                       "kafka_security_protocol is PLAINTEXT"):  # fmt: skip
        load_settings(data_dir=tmp_path, kafka_sasl_password=SECRET)


def test_missing_or_bad_ca_files_name_the_setting(tmp_path: Path, certs: Path) -> None:
    with pytest.raises(ConfigError, match=r"kafka_ssl_cafile /nowhere/ca.crt does not exist"):
        kafka_client_kwargs(sasl_ssl(tmp_path, certs, kafka_ssl_cafile="/nowhere/ca.crt"))
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(ConfigError, match=r"kafka_ssl_cafile .* holds no PEM certificate"):
        kafka_client_kwargs(sasl_ssl(tmp_path, certs, kafka_ssl_cafile=junk))
    s = sasl_ssl(tmp_path, certs, kafka_ssl_certfile=certs / "admin.crt",
                 kafka_ssl_keyfile=certs / "kafka.key")  # fmt: skip
    with pytest.raises(ConfigError, match="are not a PEM certificate and its unencrypted key"):
        kafka_client_kwargs(s)
    good = sasl_ssl(tmp_path, certs, kafka_ssl_certfile=certs / "admin.crt",
                    kafka_ssl_keyfile=certs / "admin.key")  # fmt: skip
    assert isinstance(kafka_client_kwargs(good)["ssl_context"], ssl.SSLContext)


def test_secrets_are_masked_wherever_settings_are_shown(tmp_path: Path, certs: Path) -> None:
    s = sasl_ssl(tmp_path, certs)
    shown = s.describe()
    assert shown["kafka_sasl_password"] == "****"
    assert shown["kafka_sasl_username"] == "memgate"
    assert shown["kafka_security_protocol"] == "SASL_SSL"
    assert SECRET not in str(shown) and SECRET not in repr(s) and SECRET not in str(s)
