"""deploy/compose.yaml is the secured layout: Kafka SASL_SSL (SCRAM-SHA-512), OpenSearch
with its security plugin and TLS, ClickHouse with a password and TLS only, the workers
configured to use all three with the CA of deploy/certs.sh, and the same versions as
deploy/local/services.sh. (Docker cannot run here: this checks the files, runs
deploy/kafka/secure-broker.sh in its configure-only mode with the compose environment, and
loads the workers' environment through memgate's own settings.)"""

from __future__ import annotations

import os
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from memgate.core.settings import load_settings
from tests.unit.tls_certs import ROOT, make_certs

DEPLOY = ROOT / "deploy"
COMPOSE = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
SERVICES = COMPOSE["services"]
_VAR = re.compile(r"\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}")


def _resolved(value: Any) -> str:
    """A compose value with ${VAR:?...} given a stand-in and ${VAR:-default} its default."""
    stand_in = "Stand-in-{}-9!-0123456789abcdef0123456789"
    return _VAR.sub(lambda m: m[2] if m[2] is not None else stand_in.format(m[1]), str(value))


def _mounts(service: str) -> dict[str, str]:
    """target -> source of the bind mounts (sources relative to deploy/)."""
    out = {}
    for v in SERVICES[service].get("volumes", []):
        source, target = v.split(":")[:2]
        if source.startswith("./"):
            out[target] = source
    return out


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("certs"))


def _pom_version(pom: Path, prop: str) -> str:
    m = re.search(rf"<{re.escape(prop)}>([^<]+)</", pom.read_text())
    assert m, prop
    return m[1]


def test_versions_are_the_ones_services_sh_runs() -> None:
    kafka = _pom_version(DEPLOY / "local" / "kafka" / "pom.xml", "kafka.version")
    assert SERVICES["kafka"]["image"] == f"apache/kafka:{kafka}"
    knn = _pom_version(DEPLOY / "local" / "opensearch" / "pom.xml", "opensearch.knn.version")
    assert SERVICES["opensearch"]["image"] == f"opensearchproject/opensearch:{knn[:-2]}"
    assert knn.endswith(".0")
    assert SERVICES["prometheus"]["image"] == "prom/prometheus:v2.42.0"
    assert re.fullmatch(r"grafana/grafana:\d+\.\d+\.\d+", SERVICES["grafana"]["image"])


def test_every_certificate_mounted_is_one_certs_sh_makes(certs: Path) -> None:
    made = {p.name for p in certs.iterdir()}
    mounted = {
        src.removeprefix("./certs/")
        for s in SERVICES
        for src in _mounts(s).values()
        if src.startswith("./certs/")
    }
    assert mounted and mounted <= made, mounted - made
    assert "ca.key" not in mounted  # the CA's key stays on the host
    for s in SERVICES:
        for src in _mounts(s).values():
            assert (DEPLOY / src).exists() or src.startswith("./certs/"), (s, src)


def test_kafka_listeners_are_all_sasl_ssl_with_scram(tmp_path: Path, certs: Path) -> None:
    kafka = SERVICES["kafka"]
    assert kafka["command"][-1] == "/opt/memgate/secure-broker.sh"
    assert _mounts("kafka")["/opt/memgate/secure-broker.sh"] == "./kafka/secure-broker.sh"
    env = {k: _resolved(v) for k, v in kafka["environment"].items()}
    mounted_certs = env["KAFKA_CERTS"]
    for f in ("ca.crt", "kafka.p12", "kafka.p12.password"):
        assert _mounts("kafka")[f"{mounted_certs}/{f}"] == f"./certs/{f}"
    env.update(KAFKA_CERTS=str(certs), KAFKA_STATE_DIR=str(tmp_path), KAFKA_CONFIGURE_ONLY="1")
    subprocess.run(["bash", str(DEPLOY / "kafka" / "secure-broker.sh")], check=True,
                   env={**os.environ, **env}, capture_output=True, timeout=60)  # fmt: skip
    props = dict(
        line.split("=", 1)
        for line in (tmp_path / "config" / "server.properties").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    protocols = dict(p.split(":") for p in props["listener.security.protocol.map"].split(","))
    assert protocols == {"CONTROLLER": "PLAINTEXT", "INTERNAL": "SASL_SSL", "EXTERNAL": "SASL_SSL"}
    assert props["listeners"] == (
        "CONTROLLER://127.0.0.1:9093,INTERNAL://0.0.0.0:9092,EXTERNAL://0.0.0.0:9094"
    )  # the controller listener (plain) never leaves the container
    assert props["advertised.listeners"] == "INTERNAL://kafka:9092,EXTERNAL://localhost:9094"
    assert props["sasl.enabled.mechanisms"] == "SCRAM-SHA-512"
    assert props["ssl.keystore.location"] == f"{certs}/kafka.p12"
    assert props["ssl.endpoint.identification.algorithm"] == "https"
    ports = {p.split(":")[-1] for p in kafka["ports"]}
    assert ports == {"9094"} and all(p.startswith("127.0.0.1:") for p in kafka["ports"])
    assert "--command-config" in kafka["healthcheck"]["test"][1]
    assert (tmp_path / "config").stat().st_mode & 0o077 == 0  # it holds passwords


def test_opensearch_runs_its_security_plugin_with_tls(certs: Path) -> None:
    os_ = SERVICES["opensearch"]
    env = os_["environment"]
    assert "DISABLE_SECURITY_PLUGIN" not in env
    assert env["DISABLE_INSTALL_DEMO_CONFIG"] == "true"  # our certificates, not the demo's
    assert "OPENSEARCH_ADMIN_PASSWORD" in env and "${" in env["OPENSEARCH_ADMIN_PASSWORD"]
    mounts = _mounts("opensearch")
    conf = "/usr/share/opensearch/config"
    yml = yaml.safe_load((DEPLOY / mounts[f"{conf}/opensearch.yml"]).read_text())
    assert yml["plugins.security.ssl.http.enabled"] is True
    for layer in ("transport", "http"):
        for key in ("pemcert_filepath", "pemkey_filepath", "pemtrustedcas_filepath"):
            path = f"{conf}/{yml[f'plugins.security.ssl.{layer}.{key}']}"
            assert path in mounts, path

    def subject(name: str) -> str:
        out = subprocess.run(
            ["openssl", "x509", "-in", str(certs / f"{name}.crt"), "-noout", "-subject",
             "-nameopt", "RFC2253"], capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return out.strip().removeprefix("subject=")

    assert yml["plugins.security.nodes_dn"] == [subject("opensearch")]
    assert yml["plugins.security.authcz.admin_dn"] == [subject("admin")]
    assert "https://localhost:9200" in os_["healthcheck"]["test"][1]
    assert "--cacert" in os_["healthcheck"]["test"][1]


def test_clickhouse_speaks_only_tls_with_a_password() -> None:
    ch = SERVICES["clickhouse"]
    assert "${CLICKHOUSE_PASSWORD:?" in ch["environment"]["CLICKHOUSE_PASSWORD"]
    mounts = _mounts("clickhouse")
    tls = ET.parse(DEPLOY / mounts["/etc/clickhouse-server/config.d/tls.xml"]).getroot()
    assert tls.findtext("https_port") == "8443"
    assert tls.find("http_port").get("remove") == "1"  # type: ignore[union-attr]
    assert tls.find("tcp_port").get("remove") == "1"  # type: ignore[union-attr]
    server = tls.find("openSSL/server")
    assert server is not None
    for key in ("certificateFile", "privateKeyFile", "caConfig"):
        assert server.findtext(key) in mounts, key
    client = ET.parse(DEPLOY / mounts["/etc/clickhouse-client/config.xml"]).getroot()
    assert (client.findtext("port"), client.findtext("secure")) == ("9440", "true")
    assert [p.split(":")[-1] for p in ch["ports"]] == ["8443"]
    assert "https://localhost:8443/ping" in ch["healthcheck"]["test"][1]
    grafana = yaml.safe_load(
        (DEPLOY / "grafana/provisioning/datasources/clickhouse.yaml").read_text()
    )["datasources"][0]
    assert (grafana["jsonData"]["port"], grafana["jsonData"]["secure"]) == (8443, True)
    ca = grafana["secureJsonData"]["tlsCACert"]
    assert ca == "$__file{/etc/grafana/certs/ca.crt}"
    assert _mounts("grafana")["/etc/grafana/certs/ca.crt"] == "./certs/ca.crt"


def test_the_workers_settings_use_every_secured_transport(tmp_path: Path) -> None:
    worker = SERVICES["memgate-worker"]
    env = {k: _resolved(v) for k, v in worker["environment"].items()}
    ca = env["MEMGATE_KAFKA_SSL_CAFILE"]
    assert _mounts("memgate-worker")[ca] == "./certs/ca.crt"
    overrides = {k.removeprefix("MEMGATE_").lower(): v for k, v in env.items()}
    overrides["data_dir"] = str(tmp_path)
    s = load_settings(**overrides)  # the settings' own checks accept the combination
    assert s.kafka_security_protocol == "SASL_SSL" and s.kafka_sasl_mechanism == "SCRAM-SHA-512"
    assert s.kafka_sasl_password is not None
    assert s.opensearch_url.startswith("https://") and s.opensearch_password is not None
    assert s.clickhouse_url == "https://clickhouse:8443"
    assert {str(s.kafka_ssl_cafile), str(s.opensearch_ca_certs), str(s.clickhouse_ca_cert)} == {ca}
    kafka_env = SERVICES["kafka"]["environment"]
    assert (
        worker["environment"]["MEMGATE_KAFKA_SASL_PASSWORD"].split(":?")[0]
        == (kafka_env["KAFKA_MEMGATE_PASSWORD"].split(":?")[0])
    )  # the workers log in with the password the broker was given
    assert "9092:kafka" in kafka_env["KAFKA_SECURE_LISTENERS"]
    assert s.kafka_bootstrap == "kafka:9092"


def _memgate_role() -> dict[str, Any]:
    """The memgate role that deploy/opensearch/secure-entrypoint.sh appends to roles.yml."""
    script = (DEPLOY / "opensearch" / "secure-entrypoint.sh").read_text()
    m = re.search(r"cat >>\"\$SEC/roles\.yml\" <<'YML'\n(.*?)\nYML\n", script, re.S)
    assert m, "the roles.yml heredoc"
    role: dict[str, Any] = yaml.safe_load(m[1])["memgate"]
    return role


def test_the_memgate_role_covers_its_indices_and_may_only_read_index_templates(
    tmp_path: Path,
) -> None:
    from fnmatch import fnmatchcase

    from memgate.sinks.opensearch_usage import usage_index_name

    role = _memgate_role()
    cluster = role["cluster_permissions"]
    # template actions are cluster-wide in the security plugin: no name filter would hold
    assert [p for p in cluster if "template" in p] == ["indices:admin/index_template/get"]
    assert not any(p.endswith("*") and "admin" in p for p in cluster), cluster
    patterns = [p for rule in role["index_permissions"] for p in rule["index_patterns"]]
    worker = SERVICES["memgate-worker"]["environment"]
    index = load_settings(data_dir=tmp_path, opensearch_index=worker.get(
        "MEMGATE_OPENSEARCH_INDEX", "memgate-facts")).opensearch_index  # fmt: skip
    for name in (index, f"{index}-000001", usage_index_name(index)):  # facts, rollover, usage
        assert any(fnmatchcase(name, p) for p in patterns), (name, patterns)
    assert not any(fnmatchcase("other-facts", p) for p in patterns)


def test_the_admin_installs_the_index_template_before_the_workers_start(tmp_path: Path) -> None:
    setup, worker = SERVICES["memgate-setup"], SERVICES["memgate-worker"]
    assert setup["command"] == ["setup", "opensearch"]
    assert (setup["image"], setup["build"]) == (worker["image"], worker["build"])
    assert setup["restart"] == "no"
    assert setup["depends_on"]["opensearch"]["condition"] == "service_healthy"
    assert worker["depends_on"]["memgate-setup"]["condition"] == ("service_completed_successfully")
    env = {k: _resolved(v) for k, v in setup["environment"].items()}
    assert env["MEMGATE_OPENSEARCH_ADMIN_USERNAME"] == "admin"  # secure-entrypoint.sh's admin
    admin_pw = setup["environment"]["MEMGATE_OPENSEARCH_ADMIN_PASSWORD"]
    os_pw = SERVICES["opensearch"]["environment"]["OPENSEARCH_ADMIN_PASSWORD"]
    assert admin_pw.split(":?")[0] == os_pw.split(":?")[0]  # the password the node was given
    for key in ("MEMGATE_OPENSEARCH_URL", "MEMGATE_OPENSEARCH_INDEX",
                "MEMGATE_OPENSEARCH_CA_CERTS", "MEMGATE_EMBEDDER"):  # fmt: skip
        assert setup["environment"].get(key) == worker["environment"].get(key), key
    assert _mounts("memgate-setup") == _mounts("memgate-worker")  # the same CA
    overrides = {k.removeprefix("MEMGATE_").lower(): v for k, v in env.items()
                 if "ADMIN" not in k}  # fmt: skip
    s = load_settings(**{**overrides, "data_dir": str(tmp_path)})
    assert s.opensearch_url.startswith("https://")
