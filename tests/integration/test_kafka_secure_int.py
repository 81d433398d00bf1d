"""memgate's Kafka clients against a real broker that demands SASL_SSL with SCRAM-SHA-512.

The broker is this test's own: deploy/kafka/secure-broker.sh (the script the compose
layout runs) on the Kafka jars that deploy/local/services.sh fetches (``install``: fetch
only; the shared broker on 19092 is never started, stopped or reset), on other ports
(MEMGATE_SECURE_KAFKA_PORT, 19392, and the controller on 19393), with a data dir in tmp,
certificates from deploy/certs.sh and a 256 MB heap. It is stopped in a ``finally``.

* the producer (``produce_turns``) and a consumer built by ``kafka_client_kwargs`` move
  turns through it, and the committed lag (admin client + consumer) is read through it;
* a wrong password is refused with one line naming the user and the settings, a client
  without TLS and one trusting another CA are refused with their own line, and the
  password never appears in any of them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from memgate.core.errors import AuthenticationError, ConfigError, MemgateError, TransientError
from memgate.core.settings import Settings, load_settings
from memgate.streams.app import ensure_topics
from memgate.streams.kafka_client import kafka_client_kwargs
from memgate.streams.kafka_probe import KafkaNotAnswering, probe_kafka
from memgate.streams.lag import CommittedLag, Partition
from memgate.streams.producer import produce_turns
from tests.unit.streams.conftest import turn

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PORT = int(os.environ.get("MEMGATE_SECURE_KAFKA_PORT", "19392"))
CONTROLLER_PORT = PORT + 1
PASSWORD = "memgate-it-Secret-7"
START_TIMEOUT_S = 180

SettingsFor = Callable[..., Settings]


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _install_kafka() -> dict[str, str]:
    proc = subprocess.run(
        ["bash", str(ROOT / "deploy" / "local" / "services.sh"), "install", "kafka"],
        capture_output=True, text=True, timeout=1200,
    )  # fmt: skip
    if proc.returncode != 0:
        pytest.fail(f"services.sh install kafka failed:\n{proc.stderr[-3000:]}", pytrace=False)
    return dict(line.split("=", 1) for line in proc.stdout.split() if "=" in line)


async def _wait_ready(settings: Settings, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            pytest.fail(f"the broker exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            await ensure_topics(settings)
            return
        except MemgateError:
            if time.monotonic() > deadline:
                pytest.fail(f"the broker was not ready in {START_TIMEOUT_S} s:\n"
                            f"{log.read_text()[-3000:]}")  # fmt: skip
            await asyncio.sleep(1.0)


@pytest.fixture(scope="module")
def secure_kafka(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SettingsFor]:
    for port in (PORT, CONTROLLER_PORT):
        if not _port_free(port):
            pytest.fail(f"port {port} is in use: set MEMGATE_SECURE_KAFKA_PORT", pytrace=False)
    found = _install_kafka()
    tmp = tmp_path_factory.mktemp("secure-kafka")
    certs = tmp / "certs"
    subprocess.run(["bash", str(ROOT / "deploy" / "certs.sh"), str(certs)], check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    env = {
        **os.environ,
        "KAFKA_CERTS": str(certs),
        "KAFKA_ADMIN_PASSWORD": "admin-it-Secret-3",
        "KAFKA_MEMGATE_PASSWORD": PASSWORD,
        "KAFKA_SECURE_LISTENERS": f"CLIENT:{PORT}:localhost",
        "KAFKA_BIND": "127.0.0.1",
        "KAFKA_CONTROLLER_PORT": str(CONTROLLER_PORT),
        "KAFKA_STATE_DIR": str(tmp / "state"),
        "KAFKA_NUM_PARTITIONS": "1",
        "KAFKA_HEAP_OPTS": "-Xms128m -Xmx256m -XX:TieredStopAtLevel=1",
        "KAFKA_CLEANER_BUFFER_BYTES": str(16 * 1024 * 1024),
        "KAFKA_CLASSPATH": f"{found['MEMGATE_KAFKA_LIB']}/*",
        "JAVA": found["MEMGATE_JAVA"],
    }
    log = tmp / "broker.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", str(ROOT / "deploy" / "kafka" / "secure-broker.sh")],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def settings_for(**kw: Any) -> Settings:
        base: dict[str, Any] = {
            "data_dir": tmp / "data",
            "kafka_bootstrap": f"localhost:{PORT}",
            "kafka_security_protocol": "SASL_SSL",
            "kafka_sasl_mechanism": "SCRAM-SHA-512",
            "kafka_sasl_username": "memgate",
            "kafka_sasl_password": PASSWORD,
            "kafka_ssl_cafile": certs / "ca.crt",
            "topic_prefix": "secure",
        }
        return load_settings(**{**base, **kw})

    try:
        asyncio.run(_wait_ready(settings_for(), proc, log))
        yield settings_for
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def test_turns_go_through_a_sasl_ssl_broker(secure_kafka: SettingsFor) -> None:
    settings = secure_kafka(topic_prefix="through")
    turns = [turn(f"t{i}", f"I moved to Lisbon in 20{i:02d}.", minutes=i) for i in range(5)]

    async def run() -> tuple[list[str], dict[Partition, int]]:
        sent = await produce_turns(settings, turns)
        assert sent == len(turns)
        topic = "through.turns"
        consumer = AIOKafkaConsumer(
            topic, **kafka_client_kwargs(settings), group_id="through.readers",
            auto_offset_reset="earliest", enable_auto_commit=False,
        )  # fmt: skip
        await consumer.start()
        try:
            got: list[str] = []
            deadline = time.monotonic() + 60
            while len(got) < len(turns) and time.monotonic() < deadline:
                batch = await consumer.getmany(timeout_ms=1000)
                got += [m.value.decode() for msgs in batch.values() for m in msgs]
            await consumer.commit({TopicPartition(topic, 0): 2})
        finally:
            await consumer.stop()
        lag = CommittedLag(settings, "through.readers")
        try:
            lags = await lag.read([(topic, 0)])
        finally:
            await lag.close()
        return got, lags

    got, lags = asyncio.run(run())
    assert [t.model_dump_json() for t in turns] == got
    assert lags == {Partition("through.turns", 0): 3}
    # /ready's probe connects as the settings say: it answers through SASL_SSL and does
    # not answer in plain text (the listener speaks TLS)
    assert probe_kafka(settings.kafka_bootstrap, 10.0, settings) >= 1
    with pytest.raises(KafkaNotAnswering):
        probe_kafka(settings.kafka_bootstrap, 3.0)


def test_wrong_login_and_wrong_transport_are_refused_in_one_line(
    secure_kafka: SettingsFor,
) -> None:
    def refusal(**kw: Any) -> MemgateError:
        with pytest.raises(MemgateError) as caught:
            asyncio.run(produce_turns(secure_kafka(**kw), [turn("x1", "I like tea.")]))
        assert "\n" not in str(caught.value)
        return caught.value

    wrong = refusal(kafka_sasl_password="not-the-password")
    assert isinstance(wrong, AuthenticationError)
    assert str(wrong) == (
        f"Kafka at localhost:{PORT} refused the login of user 'memgate' (SCRAM-SHA-512): "
        "check MEMGATE_KAFKA_SASL_USERNAME and MEMGATE_KAFKA_SASL_PASSWORD"
    )
    nobody = refusal(kafka_sasl_username="mallory")
    assert isinstance(nobody, AuthenticationError) and "'mallory'" in str(nobody)
    plain = refusal(kafka_security_protocol="PLAINTEXT", kafka_sasl_username=None,
                    kafka_sasl_password=None, kafka_ssl_cafile=None)  # fmt: skip
    assert isinstance(plain, TransientError) and "is its listener PLAINTEXT?" in str(plain)
    untrusted = refusal(kafka_ssl_cafile=None)  # the system CAs do not know ours
    assert isinstance(untrusted, ConfigError)
    assert "does not trust" in str(untrusted) and "MEMGATE_KAFKA_SSL_CAFILE" in str(untrusted)
    for e in (wrong, nobody, plain, untrusted):
        assert PASSWORD not in str(e) and "not-the-password" not in str(e)
