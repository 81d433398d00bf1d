"""Integration fixtures: real Kafka, OpenSearch and Prometheus, started once per session.

The services are started by the project's own script (``deploy/local/services.sh``),
which is idempotent: under ``make test`` they are already up and this is a no-op.
A service that cannot be started fails the tests; nothing is skipped.

The test process computes in-process references that are compared with what ``memgate
worker`` processes stored, vectors included, exactly; so it runs as a memgate process
does: :func:`like_a_memgate_process` (autouse, once per session).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from memgate.core.embedding import limit_blas_threads
from memgate.core.settings import Settings, load_settings
from memgate.sinks.opensearch import OpenSearchStore

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "deploy" / "local" / "services.sh"
KAFKA = os.environ.get("MEMGATE_KAFKA_BOOTSTRAP", "127.0.0.1:19092")
OPENSEARCH = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
PROMETHEUS = os.environ.get("MEMGATE_PROMETHEUS_URL", "http://127.0.0.1:19090")
WORKER_METRICS_PORT = 19101  # one of the targets Prometheus scrapes (services.sh)
#: the deployment's key, the same for every worker and for the in-process reference runs
#: (fact ids, the journal's digests and tombstone names are keyed digests under it)
DEPLOYMENT_KEY = "integration-deployment-key-0123456789abcdef"


def _port_open(hostport: str) -> bool:
    host, _, port = hostport.rpartition(":")
    host = host.replace("http://", "").replace("https://", "")
    try:
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except OSError:
        return False


def like_a_memgate_process() -> list[str]:
    """Cap this process's BLAS threads as every memgate entry point caps its own
    (``settings.blas_threads``, read from the same ``MEMGATE_*`` environment a worker
    started by :func:`worker_env` gets; default 1).

    OpenBLAS's float32 matrix product splits its work by thread count, and the rows it
    gives differ in the last bits between one thread and two: an in-process reference
    computed with the library's default (one thread per core) holds vectors a few ulp
    (about 1e-7) away from a worker's, for every fact. Returns the libraries capped."""
    return limit_blas_threads(load_settings().blas_threads)


@pytest.fixture(scope="session", autouse=True)
def memgate_process() -> None:
    """The test process computes vectors as a memgate process does."""
    like_a_memgate_process()


@pytest.fixture(scope="session")
def services() -> Iterator[dict[str, str]]:
    proc = subprocess.run(
        ["bash", str(SERVICES), "up", "all"], capture_output=True, text=True, timeout=1200
    )
    if proc.returncode != 0:
        pytest.fail(
            "could not start the local services with deploy/local/services.sh up all:\n"
            + proc.stderr[-4000:],
            pytrace=False,
        )
    yield {"kafka": KAFKA, "opensearch": OPENSEARCH, "prometheus": PROMETHEUS}


@pytest.fixture
def run_id() -> str:
    return "it-" + uuid.uuid4().hex[:8]


def worker_env(run_id: str, data_dir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "MEMGATE_DATA_DIR": str(data_dir),
            "MEMGATE_RETRIEVAL_BACKEND": "opensearch",
            "MEMGATE_OPENSEARCH_URL": OPENSEARCH,
            "MEMGATE_OPENSEARCH_INDEX": f"memgate-{run_id}",
            "MEMGATE_KAFKA_BOOTSTRAP": KAFKA,
            "MEMGATE_TOPIC_PREFIX": run_id,
            "MEMGATE_WORKER_ID": run_id,
            "MEMGATE_METRICS_PORT": str(WORKER_METRICS_PORT),
            "MEMGATE_EMBEDDER": "minilm",
            "MEMGATE_HMAC_KEY": DEPLOYMENT_KEY,
        }
    )
    env.update(extra)
    return env


class WorkerProcess:
    """A real ``memgate worker`` subprocess."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        memgate = Path(sys.executable).parent / "memgate"
        log = self.log_path.open("ab")
        self.proc = subprocess.Popen(
            [str(memgate), "worker", "--loglevel", "info"],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited early; log:\n{self.log()}")
            if _port_open(f"127.0.0.1:{self.env['MEMGATE_METRICS_PORT']}"):
                return
            time.sleep(0.2)
        raise AssertionError(f"worker did not start in 120 s; log:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-6000:]

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)


def settings_for(env: dict[str, str]) -> Settings:
    return load_settings(
        data_dir=env["MEMGATE_DATA_DIR"],
        retrieval_backend="opensearch",
        opensearch_url=env["MEMGATE_OPENSEARCH_URL"],
        opensearch_index=env["MEMGATE_OPENSEARCH_INDEX"],
        kafka_bootstrap=env["MEMGATE_KAFKA_BOOTSTRAP"],
        topic_prefix=env["MEMGATE_TOPIC_PREFIX"],
        worker_id=env["MEMGATE_WORKER_ID"],
        hmac_key=env.get("MEMGATE_HMAC_KEY"),
    )


@contextmanager
def running_worker(env: dict[str, str], log_path: Path) -> Iterator[WorkerProcess]:
    """A started ``memgate worker``; on the way out it is stopped and its index dropped."""
    w = WorkerProcess(env, log_path)
    w.start()
    try:
        yield w
    finally:
        w.stop()
        store = OpenSearchStore.from_settings(settings_for(env), dim=384)
        store.client.indices.delete(index=store.index, ignore_unavailable=True)
        store.close()
