"""The benchmarks' throwaway data dirs are keyed in memory: no key file left behind.

Each run of a benchmark opened a data dir in a temporary folder, deleted at the end,
while the HMAC key file made for it (``$XDG_CONFIG_HOME/memgate/keys/<id>.key``,
:mod:`memgate.keys`) stayed: one more 32-byte file in the key folder each run, keying
nothing. The settings each benchmark builds for its data dir now carry a key (the
``hmac_key`` setting when set, else one held in memory), as ``memgate eval``'s do.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memgate.core.settings import Settings
from memgate.keys import hmac_key

BENCH = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MEMGATE_HMAC_KEY", raising=False)
    monkeypatch.delenv("MEMGATE_HMAC_KEY_FILE", raising=False)
    # the LoCoMo file is looked up on first use only; none is read here
    monkeypatch.setenv("MEMGATE_LOCOMO_DEV", str(tmp_path / "no-locomo.json"))
    monkeypatch.syspath_prepend(str(BENCH))


def _bench(name: str) -> ModuleType:
    return importlib.import_module(name)


def _key_files(tmp_path: Path) -> list[Path]:
    keys = tmp_path / "config" / "memgate" / "keys"
    return sorted(keys.iterdir()) if keys.is_dir() else []


def _search_args(data_dir: Path | None) -> argparse.Namespace:
    return argparse.Namespace(data_dir=data_dir, embedder="hashing", backend="embedded")


BUILDERS: dict[str, Any] = {
    "bench_inprocess": lambda m, tmp: m.bench_settings(tmp, "numpy", 0),
    "bench_dedupe_opensearch": lambda m, tmp: m.bench_settings(tmp, "http://127.0.0.1:1", "i"),
    "bench_pipeline": lambda m, tmp: m.settings("r1", tmp / "w0", "127.0.0.1:1", "http://x:1"),
    "bench_burst": lambda m, tmp: m.bench_settings(tmp / "d"),
    "search_latency": lambda m, tmp: m.bench_settings(_search_args(None), 40, tmp, "i"),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_each_benchmark_keys_its_throwaway_data_dir_without_a_key_file(
    name: str, tmp_path: Path
) -> None:
    s: Settings = BUILDERS[name](_bench(name), tmp_path / "run")
    assert s.hmac_key is not None, f"{name} builds a data dir with no key of its own"
    assert s.data_dir.is_relative_to(tmp_path / "run")
    assert hmac_key(s) == s.hmac_key.get_secret_value().encode()
    assert _key_files(tmp_path) == []


def test_two_runs_of_a_benchmark_do_not_share_a_key_unless_one_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = _bench("bench_inprocess")
    one, two = (m.bench_settings(tmp_path / r, "numpy", 0) for r in ("a", "b"))
    assert one.hmac_key is not None and two.hmac_key is not None
    assert one.hmac_key.get_secret_value() != two.hmac_key.get_secret_value()
    monkeypatch.setenv("MEMGATE_HMAC_KEY", "k" * 40)
    assert m.bench_settings(tmp_path / "c", "numpy", 0).hmac_key.get_secret_value() == "k" * 40


def test_the_pipeline_benchmark_s_workers_get_its_key(tmp_path: Path) -> None:
    m = _bench("bench_pipeline")
    s = m.settings("r1", tmp_path / "w0", "127.0.0.1:1", "http://127.0.0.1:1")
    env = m.worker_env(s, tmp_path / "w1", 9999)
    assert s.hmac_key is not None and env["MEMGATE_HMAC_KEY"] == s.hmac_key.get_secret_value()


def test_search_latency_in_a_kept_data_dir_uses_its_key_file(tmp_path: Path) -> None:
    """``--data-dir``: the data dir outlives the run, so it is keyed like any other."""
    m = _bench("search_latency")
    s = m.bench_settings(_search_args(tmp_path / "kept"), 40, tmp_path / "tmp", "i")
    assert s.hmac_key is None and s.data_dir == tmp_path / "kept" / "facts-40"
