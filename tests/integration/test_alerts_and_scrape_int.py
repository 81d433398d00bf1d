"""Alert rules checked and unit-tested with promtool, loaded by the real Prometheus; and a
Prometheus configured like the compose file's scraping a worker from outside its host
address (the worker's metrics bind address), with the worker's /live and /ready."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.integration.conftest import PROMETHEUS, ROOT, WorkerProcess, worker_env

pytestmark = pytest.mark.integration

PROM_DIR = ROOT / "deploy" / "prometheus"


def _tool(name: str) -> str:
    path = shutil.which(name) or f"/usr/bin/{name}"
    assert Path(path).is_file(), (
        f"{name} is not installed; deploy/local/services.sh up prometheus installs it"
    )
    return path


def test_promtool_checks_and_unit_tests_the_alert_rules(services: dict[str, str]) -> None:
    promtool = _tool("promtool")
    check = subprocess.run(
        [promtool, "check", "rules", "alerts.yml"], cwd=PROM_DIR, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    tested = subprocess.run(
        [promtool, "test", "rules", "alerts_test.yml"],
        cwd=PROM_DIR,
        capture_output=True,
        text=True,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    config = subprocess.run(
        [promtool, "check", "config", "prometheus.yml"],
        cwd=PROM_DIR,
        capture_output=True,
        text=True,
    )
    assert config.returncode == 0, config.stdout + config.stderr


def _get_json(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=5) as r:
        doc = json.load(r)
    assert isinstance(doc, dict)
    return doc


def test_the_test_prometheus_evaluates_every_alert_rule(services: dict[str, str]) -> None:
    wanted = {
        r["alert"]
        for g in yaml.safe_load((PROM_DIR / "alerts.yml").read_text())["groups"]
        for r in g["rules"]
        if "alert" in r
    }
    deadline = time.monotonic() + 30
    while True:
        groups = _get_json(f"{PROMETHEUS}/api/v1/rules")["data"]["groups"]  # type: ignore[index]
        rules = {r["name"]: r for g in groups for r in g["rules"]}
        evaluated = {n for n in wanted if n in rules and rules[n].get("health") == "ok"}
        if evaluated == wanted or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert evaluated == wanted, f"not loaded or not evaluated: {sorted(wanted - evaluated)}"


def _host_ip() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # picks the outgoing address; sends nothing
        ip = str(s.getsockname()[0])
    assert not ip.startswith("127."), "this machine has no non-loopback IPv4 address"
    return ip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def exposed_worker(
    services: dict[str, str], run_id: str, tmp_path: Path
) -> Iterator[tuple[WorkerProcess, str]]:
    port = _free_port()
    env = worker_env(
        run_id,
        tmp_path / "data",
        MEMGATE_METRICS_PORT=str(port),
        MEMGATE_METRICS_HOST="0.0.0.0",
        MEMGATE_EMBEDDER="hashing",
    )
    w = WorkerProcess(env, tmp_path / "worker.log")
    w.start()
    try:
        yield w, f"{_host_ip()}:{port}"
    finally:
        w.stop()


def test_a_prometheus_configured_like_the_compose_file_sees_the_worker_up(
    exposed_worker: tuple[WorkerProcess, str], tmp_path: Path
) -> None:
    worker, target = exposed_worker
    # the worker answers on its host address, not only on loopback
    deadline = time.monotonic() + 60
    while True:
        try:
            ready = _get_json(f"http://{target}/ready")
            break
        except urllib.error.HTTPError as e:  # 503 until the consumer runs
            if time.monotonic() > deadline:
                raise AssertionError(f"/ready: {e.read().decode()}\n{worker.log()}") from e
            time.sleep(1)
    assert ready["status"] == "ready", ready
    assert _get_json(f"http://{target}/live") == {"status": "live"}

    # the compose file's Prometheus config, with the worker's DNS discovery (Docker's DNS
    # answers the service name) replaced by the worker's address here
    config = yaml.safe_load((PROM_DIR / "prometheus.yml").read_text())
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "memgate"]
    assert job.pop("dns_sd_configs"), "the compose config discovers workers by DNS"
    job["static_configs"] = [{"targets": [target]}]
    home = tmp_path / "prom"
    home.mkdir()
    (home / "prometheus.yml").write_text(yaml.safe_dump(config))
    shutil.copy(PROM_DIR / "alerts.yml", home / "alerts.yml")
    port = _free_port()
    proc = subprocess.Popen(
        [
            _tool("prometheus"),
            f"--config.file={home / 'prometheus.yml'}",
            f"--storage.tsdb.path={home / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(home / "prometheus.log").open("wb"),
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        up: list[object] = []
        while time.monotonic() < deadline:
            try:
                targets = _get_json(f"http://127.0.0.1:{port}/api/v1/targets")
                active = targets["data"]["activeTargets"]  # type: ignore[index]
                up = [t for t in active if t["labels"]["job"] == "memgate"]
                if up and up[0]["health"] == "up":
                    break
            except OSError:
                pass  # not listening yet
            time.sleep(1)
        assert up and up[0]["health"] == "up", (  # type: ignore[index]
            f"targets: {up}\n{(home / 'prometheus.log').read_text()[-3000:]}"
        )
    finally:
        proc.terminate()
        proc.wait(timeout=30)
