"""Embeddings per second, unbatched (one text a call) and batched (32 a call), on the numpy
float32 and the ONNX Runtime int8 paths, with the BLAS and its thread count.

    .venv/bin/python benchmarks/bench_embed.py [--texts 256]
"""

from __future__ import annotations

import argparse
import time

from common import LOCOMO, blas, write

from memgate.core.embedding import MiniLMEmbedder, limit_blas_threads
from memgate.inputs import load_locomo


def texts(n: int) -> list[str]:
    out: list[str] = []
    for conv in load_locomo(LOCOMO):
        out += [t.content for t in conv.turns]
        if len(out) >= n:
            break
    return list(dict.fromkeys(out))[:n]


def rate(e: MiniLMEmbedder, items: list[str], batch: int) -> tuple[float, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    for s in range(0, len(items), batch):
        e.embed(items[s : s + batch])
    return len(items) / (time.perf_counter() - t0), len(items) / (time.process_time() - c0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--texts", type=int, default=256)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    limit_blas_threads(a.threads)
    items = texts(a.texts)
    rows = []
    runtimes = ["numpy"]
    try:
        import onnxruntime  # noqa: F401

        runtimes.append("onnx-int8")
    except ImportError:
        rows.append({"what": "embeddings/s onnx-int8", "figure": "not run: onnxruntime "
                     "not installed (pip install -e '.[onnx]')", "unit": ""})
    for rt in runtimes:
        e = MiniLMEmbedder(cache_size=0, runtime=rt)  # type: ignore[arg-type]
        e.embed(items[:4])  # load
        for batch in (1, 32):
            wall, cpu = rate(e, items, batch)
            rows.append({
                "what": f"embeddings/s {rt}, {'unbatched' if batch == 1 else f'batch {batch}'}",
                "figure": f"{wall:.1f}",
                "unit": "texts/s (wall)",
                "note": f"{cpu:.1f}/s per CPU-second; {len(items)} LoCoMo turns; "
                        f"BLAS: {blas()}; onnx intra-op threads 1; "
                        f"at most {e.token_budget} padded word pieces a pass",
            })
    write("embed", rows)


if __name__ == "__main__":
    main()
