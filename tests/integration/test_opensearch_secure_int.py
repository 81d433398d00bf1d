"""memgate's OpenSearch store against a real node running the OpenSearch security plugin.

The node is this test's own: deploy/local/opensearch/secure-node.sh (the embedded node of
deploy/local/services.sh, on the same jars, with the security plugin 2.19.1.0 from Maven
Central on its classpath) on other ports (MEMGATE_SECURE_OPENSEARCH_PORT, 19210, transport
19310), with its state in tmp, certificates from deploy/certs.sh, TLS on HTTP and transport,
the node configuration of the compose layout (deploy/opensearch/opensearch.yml) and its users
(deploy/opensearch/secure-entrypoint.sh: admin, and memgate limited to memgate-*), and a
768 MB heap. It is stopped in a ``finally``; the shared node on 19200 is never touched.

* the memgate role may not put index templates (the plugin grants template actions
  cluster-wide: one for ``other-*`` or ``*`` would shape other indices), so before the admin
  step the store, logged in as memgate, says in one line that an administrator runs
  ``memgate setup opensearch``;
* that command (the CLI, with the admin login from the environment) installs the template
  and the index; then the store as memgate over HTTPS with the CA ensures its index, writes
  facts of two tenants, finds each tenant's own only, and records usage (usage.memgate-*);
* a wrong password, a client that does not trust the CA, plain HTTP to the TLS port, and
  the memgate user on an index outside memgate-* are each refused in one line that never
  holds the password.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from opensearchpy import OpenSearch  # type: ignore[import-untyped,unused-ignore]
from opensearchpy.exceptions import AuthorizationException  # type: ignore[import-untyped,unused-ignore]

from memgate.core.embedding import HashingEmbedder
from memgate.core.errors import AuthenticationError, ConfigError, MemgateError, TransientError
from memgate.core.events import utcnow
from memgate.core.settings import Settings, load_settings
from memgate.core.stores import FactUsage, SearchQuery
from memgate.sinks.opensearch import OpenSearchStore
from memgate.sinks.opensearch_mapping import MAPPING_VERSION
from tests.contracts.retrieval import RetrievalStoreContract

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
SECURE_NODE = ROOT / "deploy" / "local" / "opensearch" / "secure-node.sh"
PORT = int(os.environ.get("MEMGATE_SECURE_OPENSEARCH_PORT", "19210"))
TRANSPORT_PORT = int(os.environ.get("MEMGATE_SECURE_OPENSEARCH_TRANSPORT_PORT", "19310"))
ADMIN_PASSWORD = "Admin-it-Secret-3"
PASSWORD = "Memgate-it-Secret-7"
WRONG = "Not-the-Secret-9"
START_TIMEOUT_S = 300
URL = f"https://localhost:{PORT}"

INDEX = "memgate-secure-facts"
SETUP_LINE = (
    "and user 'memgate' may not install index templates: an administrator runs `memgate setup "
    "opensearch` once (with MEMGATE_OPENSEARCH_ADMIN_USERNAME and "
    "MEMGATE_OPENSEARCH_ADMIN_PASSWORD set to an OpenSearch admin login)"
)


class _Helper(RetrievalStoreContract):
    DIM = HashingEmbedder().dim  # the embedder `memgate setup opensearch --embedder hashing` sizes


helper = _Helper()
DIM = helper.DIM
SettingsFor = Callable[..., Settings]


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


def _admin(certs: Path) -> OpenSearch:
    return OpenSearch(hosts=[URL], http_auth=("admin", ADMIN_PASSWORD), verify_certs=True,
                      ca_certs=str(certs / "ca.crt"), max_retries=0, timeout=30)  # fmt: skip


def _wait_ready(admin: OpenSearch, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until the admin logs in (the security index is loaded) and the cluster is yellow."""
    deadline = time.monotonic() + START_TIMEOUT_S
    last = "no answer yet"
    while True:
        if proc.poll() is not None:
            pytest.fail(f"the node exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
        try:
            status = admin.cluster.health()["status"]
            if status in ("green", "yellow"):
                return
            last = f"status {status}"
        except Exception as exc:  # not listening, TLS not up, security index not loaded yet
            last = f"{type(exc).__name__}: {exc}"
        if time.monotonic() > deadline:
            pytest.fail(f"the node was not ready in {START_TIMEOUT_S} s ({last}):\n"
                        f"{log.read_text()[-3000:]}")  # fmt: skip
        time.sleep(1.0)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("secure-os-certs")
    subprocess.run(["bash", str(ROOT / "deploy" / "certs.sh"), str(folder)], check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    return folder


@pytest.fixture(scope="module")
def secure_opensearch(
    tmp_path_factory: pytest.TempPathFactory, certs: Path
) -> Iterator[SettingsFor]:
    for port in (PORT, TRANSPORT_PORT):
        if not _port_free(port):
            pytest.fail(f"port {port} is in use: set MEMGATE_SECURE_OPENSEARCH_PORT and "
                        "MEMGATE_SECURE_OPENSEARCH_TRANSPORT_PORT", pytrace=False)  # fmt: skip
    # downloads (first run only), apart from the start that is timed below
    got = subprocess.run(["bash", str(SECURE_NODE), "install"], capture_output=True, text=True,
                         timeout=1200)  # fmt: skip
    if got.returncode != 0:
        pytest.fail(f"secure-node.sh install failed:\n{got.stderr[-3000:]}", pytrace=False)
    tmp = tmp_path_factory.mktemp("secure-os")
    env = {
        **os.environ,
        "OPENSEARCH_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "OPENSEARCH_MEMGATE_PASSWORD": PASSWORD,
        "OPENSEARCH_CERTS": str(certs),
        "MEMGATE_SECURE_OPENSEARCH_PORT": str(PORT),
        "MEMGATE_SECURE_OPENSEARCH_TRANSPORT_PORT": str(TRANSPORT_PORT),
        "MEMGATE_SECURE_OPENSEARCH_HEAP": "768m",
    }
    log = tmp / "node.out"
    started = time.monotonic()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", str(SECURE_NODE), "run", str(tmp / "state")],
            env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip

    def settings_for(**kw: Any) -> Settings:
        base: dict[str, Any] = {
            "data_dir": tmp / "data",
            "retrieval_backend": "opensearch",
            "opensearch_url": URL,
            "opensearch_username": "memgate",
            "opensearch_password": PASSWORD,
            "opensearch_ca_certs": certs / "ca.crt",
            "opensearch_index": INDEX,
            "retry_max_attempts": 2,
            "retry_base_delay_s": 0.05,
        }
        return load_settings(**{**base, **kw})

    admin = _admin(certs)
    try:
        _wait_ready(admin, proc, log)
        print(f"\nsecure OpenSearch node ready in {time.monotonic() - started:.1f} s "
              "(configuration, bcrypt hashes and node start)", file=sys.stderr)  # fmt: skip
        yield settings_for
    finally:
        admin.close()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)


def _as_memgate(certs: Path) -> OpenSearch:
    return OpenSearch(hosts=[URL], http_auth=("memgate", PASSWORD), verify_certs=True,
                      ca_certs=str(certs / "ca.crt"), max_retries=0, timeout=30)  # fmt: skip


def test_memgate_may_not_put_index_templates_and_says_who_installs_its_own(
    secure_opensearch: SettingsFor, certs: Path
) -> None:
    admin = _admin(certs)
    try:
        plugins = {p["component"] for p in admin.cat.plugins(format="json")}
        assert "org.opensearch.security.OpenSearchSecurityPlugin" in plugins
        assert "org.opensearch.knn.plugin.KNNPlugin" in plugins
        who = admin.transport.perform_request("GET", "/_plugins/_security/authinfo")
        assert who["user_name"] == "admin"
        before = admin.transport.perform_request("GET", "/_index_template")["index_templates"]
    finally:
        admin.close()
    raw = _as_memgate(certs)
    try:  # a template that would shape other indices, or every index created later
        for name, pattern in (("hijack-other", "other-*"), ("hijack-all", "*")):
            body = {"index_patterns": [pattern], "priority": 1000,
                    "template": {"settings": {"index": {"number_of_replicas": 0}}}}  # fmt: skip
            with pytest.raises(AuthorizationException) as refused:
                raw.indices.put_index_template(name=name, body=body)
            assert refused.value.status_code == 403
            assert "indices:admin/index_template/put" in str(refused.value)
    finally:
        raw.close()
    store = OpenSearchStore.from_settings(secure_opensearch(opensearch_index="other-facts"),
                                          dim=DIM)  # fmt: skip
    try:
        with pytest.raises(ConfigError) as other:
            store.ensure_index()
    finally:
        store.close()
    assert str(other.value) == (
        f"OpenSearch at {URL}: index template other-facts-template is not installed, {SETUP_LINE}"
    )
    store = OpenSearchStore.from_settings(secure_opensearch(), dim=DIM)
    try:  # memgate's own index, before the admin step
        with pytest.raises(ConfigError) as missing:
            store.ensure_index()
    finally:
        store.close()
    assert str(missing.value) == (
        f"OpenSearch at {URL}: index template {INDEX}-template is not installed, {SETUP_LINE}"
    )
    assert PASSWORD not in str(missing.value)
    admin = _admin(certs)
    try:  # nothing was made
        after = admin.transport.perform_request("GET", "/_index_template")["index_templates"]
        assert after == before
        assert not admin.indices.exists(index=INDEX)
        assert not admin.indices.exists(index="other-facts")
    finally:
        admin.close()


def _setup_cli(settings: Settings, certs: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``memgate setup opensearch`` as the admin, in its own process, as compose runs it."""
    assert settings.opensearch_password is not None
    return subprocess.run(
        [sys.executable, "-m", "memgate.cli", "--embedder", "hashing", "setup", "opensearch"],
        env={**os.environ, "MEMGATE_DATA_DIR": str(settings.data_dir),
             "MEMGATE_OPENSEARCH_URL": URL, "MEMGATE_OPENSEARCH_INDEX": settings.opensearch_index,
             "MEMGATE_OPENSEARCH_CA_CERTS": str(certs / "ca.crt"),
             "MEMGATE_OPENSEARCH_USERNAME": "memgate",
             "MEMGATE_OPENSEARCH_PASSWORD": PASSWORD, **env},
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_facts_go_through_the_secured_node_as_user_memgate(
    secure_opensearch: SettingsFor, certs: Path
) -> None:
    settings = secure_opensearch()
    started = time.monotonic()
    done = _setup_cli(settings, certs, MEMGATE_OPENSEARCH_ADMIN_USERNAME="admin",
                      MEMGATE_OPENSEARCH_ADMIN_PASSWORD=ADMIN_PASSWORD)  # fmt: skip
    print(f"\nmemgate setup opensearch (admin) took {time.monotonic() - started:.1f} s",
          file=sys.stderr)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert " ".join(done.stdout.split()) == (
        f"index template {INDEX}-template ({INDEX}*, mapping version {MAPPING_VERSION}, dim "
        f"{DIM}) and index {INDEX} are in place on OpenSearch at {URL} as user 'admin'"
    )
    assert ADMIN_PASSWORD not in done.stdout + done.stderr
    assert PASSWORD not in done.stdout + done.stderr
    store = OpenSearchStore.from_settings(settings, dim=DIM)
    try:
        store.ensure_index()
        store.ensure_index()  # idempotent under the memgate role too
        mine = [helper.make_fact(v, predicate=p) for v, p in
                (("vim", "editor"), ("kayak", "hobby"), ("python", "language"))]  # fmt: skip
        theirs = helper.make_fact("emacs", tenant_id="globex")
        store.upsert([*mine, theirs], wait=True)
        hits = store.search(SearchQuery(tenant_id="acme", user_id="u1", text="editor vim"),
                            helper.vector("user editor vim"))  # fmt: skip
        assert hits and hits[0].fact.fact_id == mine[0].fact_id
        assert {h.fact.tenant_id for h in hits} == {"acme"}
        assert {h.fact.fact_id for h in hits} <= {f.fact_id for f in mine}
        other = store.search(SearchQuery(tenant_id="globex", user_id="u1", text="editor"),
                             helper.vector("user editor emacs"))  # fmt: skip
        assert [h.fact.fact_id for h in other] == [theirs.fact_id]
        helper.assert_same(store.get("acme", "u1", mine[1].fact_id), mine[1])
        assert store.get("globex", "u1", mine[1].fact_id) is None
        now = utcnow()
        store.record_usage([FactUsage(tenant_id="acme", user_id="u1", fact_id=mine[0].fact_id,
                                      served_count=2, last_served=now)])  # fmt: skip
        got = store.usage("acme", "u1", [mine[0].fact_id])
        assert got[mine[0].fact_id].served_count == 2  # usage.memgate-* is the role's too
    finally:
        store.close()
    half = _setup_cli(settings, certs, MEMGATE_OPENSEARCH_ADMIN_USERNAME="admin")
    assert half.returncode == 1
    assert " ".join(half.stderr.split()) == (
        "error: MEMGATE_OPENSEARCH_ADMIN_USERNAME is set but MEMGATE_OPENSEARCH_ADMIN_PASSWORD "
        "is not: set both to an OpenSearch administrator's login"
    )
    # with the workers' login the command only checks (it may not put; the template is ours)
    as_memgate = _setup_cli(settings, certs)
    assert as_memgate.returncode == 0, as_memgate.stderr
    assert as_memgate.stdout.split()[-2:] == ["user", "'memgate'"]


def test_refusals_are_one_line_without_the_password(
    secure_opensearch: SettingsFor, certs: Path
) -> None:
    def refusal(act: Callable[[OpenSearchStore], object], **kw: Any) -> MemgateError:
        store = OpenSearchStore.from_settings(secure_opensearch(**kw), dim=DIM)
        try:
            with pytest.raises(MemgateError) as caught:
                act(store)
        finally:
            store.close()
        text = str(caught.value)
        assert "\n" not in text and PASSWORD not in text and WRONG not in text
        return caught.value

    def ensure(store: OpenSearchStore) -> object:
        store.ensure_index()
        return None

    wrong = refusal(ensure, opensearch_password=WRONG)
    assert isinstance(wrong, AuthenticationError)
    assert str(wrong) == (
        f"OpenSearch at {URL} refused the login of user 'memgate' (HTTP 401): check "
        "MEMGATE_OPENSEARCH_USERNAME and MEMGATE_OPENSEARCH_PASSWORD"
    )
    untrusted = refusal(ensure, opensearch_ca_certs=None)  # the system CAs do not know ours
    assert isinstance(untrusted, ConfigError)
    assert str(untrusted).startswith(
        f"OpenSearch at {URL} presented a certificate this client does not trust ("
    )
    assert "MEMGATE_OPENSEARCH_CA_CERTS" in str(untrusted)
    plain_url = f"http://localhost:{PORT}"
    plain = refusal(ensure, opensearch_url=plain_url, opensearch_ca_certs=None)
    assert isinstance(plain, TransientError)
    assert str(plain).endswith(
        f"OpenSearch at {plain_url} closed the connection without an answer: if it serves "
        "HTTPS (a TLS port drops plain HTTP), use https:// in MEMGATE_OPENSEARCH_URL"
    )
    outside = refusal(ensure, opensearch_index="other-facts")
    assert isinstance(outside, ConfigError)  # no template of its own: refused before the index
    assert str(outside).startswith(
        f"OpenSearch at {URL}: index template other-facts-template is not installed"
    )
    written = refusal(lambda s: s.upsert([helper.make_fact("vim")], wait=True),
                      opensearch_index="other-facts")  # fmt: skip
    assert isinstance(written, ConfigError) and "other-facts" in str(written)
    admin = _admin(certs)
    try:  # even with a template an admin installed, the index is outside memgate's role
        admin.indices.put_index_template(name="other-facts-template", body={
            "index_patterns": ["other-facts*"], "priority": 100,
            "_meta": {"memgate_mapping_version": MAPPING_VERSION, "dim": DIM}})  # fmt: skip
        created = refusal(ensure, opensearch_index="other-facts")
        assert isinstance(created, AuthenticationError)
        assert str(created).startswith(
            f"OpenSearch at {URL} does not allow user 'memgate' to create index on index "
            "other-facts (HTTP 403"
        )
        assert not admin.indices.exists(index="other-facts")  # nothing was written
    finally:
        admin.indices.delete_index_template(name="other-facts-template")
        admin.close()
