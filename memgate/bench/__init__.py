"""Benchmarks: the gate measured against a store-every-turn baseline in the same run.

:func:`memgate.bench.locomo.run_locomo` runs LoCoMo (evidence recall@k, write
amplification, extraction coverage, the context-rot simulation; its figures
are in :mod:`memgate.bench.figures`); :func:`memgate.bench.split.run_split`
runs it on the development and held-back conversations side by side;
:func:`memgate.bench.report.write_report` turns its result into markdown and
PNG plots.
"""

from __future__ import annotations

from memgate.bench.locomo import BenchResult, Figures, VariantResult, run_locomo

__all__ = ["BenchResult", "Figures", "VariantResult", "run_locomo"]
