"""A benchmark report: markdown tables and PNG plots (matplotlib, Agg, no pyplot state).

:func:`write_report` writes into a directory:

* ``report.md``: headline figures against the baseline and the targets,
  every preset, answers with and without memory, recall by category, per
  conversation, the context-rot simulation, drops by reason, redactions by
  kind, definitions, the command line and the machine;
* ``recall_vs_wa.png``: recall@k against write amplification, one point per
  preset and the baseline;
* ``pollution.png``: recall@k against the pollution ratio, gated and baseline;
* ``drops.png``: drops by stage and reason, per preset;
* ``redactions.png``: redactions by kind, per preset.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memgate.bench.locomo import BenchResult, Figures, VariantResult
from memgate.core.errors import require_extra

require_extra("matplotlib", "bench", "the benchmark report")

__all__ = ["PLOTS", "machine_info", "write_report"]

PLOTS = ("recall_vs_wa.png", "pollution.png", "drops.png", "redactions.png")
_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2")
_BASELINE_COLOR = "#d62728"


def machine_info() -> dict[str, str]:
    """Cores, RAM, Python, platform and BLAS thread setting (for reproducibility)."""
    ram = ""
    try:
        ram_b = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        ram = f"{ram_b / 2**30:.1f} GiB"
    except (ValueError, OSError, AttributeError):
        ram = "unknown"
    return {
        "cores": str(os.cpu_count() or "unknown"),
        "ram": ram,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "(unset)"),
    }


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    out = [_row(header), _row(["---"] * len(header))]
    out += [_row(r) for r in rows]
    return [*out, ""]


def _variants(result: BenchResult) -> list[VariantResult]:
    return [result.gated[p] for p in result.policies]


def _figure_cells(f: Figures, ks: Sequence[int]) -> list[str]:
    kk = max(ks)
    return [
        f"{f.write_amplification:.3f}",
        *[_pct(f.recall(k)) for k in ks],
        _pct(f.coverage),
        _pct(f.answer_token_recall(kk)),
        f"{f.rows_per_turn:.3f}",
        f"{f.extraction_calls_per_1k_turns:.0f}",
    ]


def _markdown(result: BenchResult, command: str | None) -> str:
    ks = result.ks
    kk = max(ks)
    h, b = result.headline, result.baseline
    tg = result.targets()
    lines: list[str] = [
        "# memgate bench locomo",
        "",
        f"Generated {datetime.now(UTC):%Y-%m-%d %H:%M UTC}; {len(result.conversations)} "
        f"conversations, {result.turns} turns, {result.questions} questions of categories 1-4 "
        f"({result.skipped_questions} skipped: no usable evidence id); embedder "
        f"`{result.embedder}`, extractor `{result.extractor}` (source sha256 "
        f"{result.extractor_source_sha256 or 'unknown'}); {result.elapsed_s:.0f} s.",
        "",
        *(
            [
                "**Warning: the extractor's source changed on disk during the run; the presets "
                "may have run different extractor code.**",
                "",
            ]
            if result.extractor_source_changed
            else []
        ),
        "## Headline",
        "",
        f"Policy `{h.name}` against the store-every-turn baseline, measured in the same run.",
        "",
    ]
    rows: list[list[object]] = [
        [
            "write amplification (facts per turn)",
            f"{h.clean.write_amplification:.3f}",
            f"{b.clean.write_amplification:.3f}",
            "≤ 0.35",
            "met" if tg["write_amplification_met"] else "missed",
        ],
    ]
    for k in ks:
        target = f"≥ 0.9 × baseline = {_pct(0.9 * b.clean.recall(k))}" if k == kk else ""
        met = ("met" if tg.get(f"recall@{k}_met") else "missed") if k == kk else ""
        rows.append(
            [
                f"evidence recall@{k}",
                _pct(h.clean.recall(k)),
                _pct(b.clean.recall(k)),
                target,
                met,
            ]
        )
    rows.append(["extraction coverage", _pct(h.clean.coverage), _pct(b.clean.coverage), "", ""])
    if result.ratios:
        worst = max(result.ratios)
        rows.append(
            [
                f"rot cost at {worst}:1 (recall@{kk} lost)",
                _pct(h.rot_cost(worst, kk)),
                _pct(b.rot_cost(worst, kk)),
                "gated < baseline",
                "met" if tg.get(f"rot_cost_{worst}x_met") else "missed",
            ]
        )
    lines += _table(["figure", h.name, "baseline", "target", ""], rows)

    lines += [
        "## Every preset",
        "",
        *_table(
            [
                "store",
                "write ampl.",
                *[f"recall@{k}" for k in ks],
                "coverage",
                f"answer tokens@{kk}",
                "rows/turn",
                "extractor calls/1k turns",
            ],
            [[v.name, *_figure_cells(v.clean, ks)] for v in [*_variants(result), b]],
        ),
        "![recall against write amplification](recall_vs_wa.png)",
        "",
        "## Answers with memory versus without",
        "",
        f"Offline proxy: the share of the gold answer's content tokens (stop words and the "
        f"question's own words removed) found in the top-{kk} retrieved facts, averaged over "
        f"{h.clean.answer_questions} questions. Without memory the context is empty, so the "
        "figure is 0 by construction. This measures what retrieval puts in front of a model, "
        "not what a model answers (no LLM judge).",
        "",
        *_table(
            ["context", f"answer-token recall@{kk}"],
            [
                ["no memory", _pct(0.0)],
                *[
                    [f"memory: {v.name}", _pct(v.clean.answer_token_recall(kk))]
                    for v in _variants(result)
                ],
                ["memory: baseline", _pct(b.clean.answer_token_recall(kk))],
            ],
        ),
        "## Recall by question category",
        "",
    ]
    cats = sorted(set(b.clean.cat_questions) | set(h.clean.cat_questions))
    names = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
    lines += _table(
        [
            "category",
            "questions",
            *[f"{v.name} @{kk}" for v in _variants(result)],
            f"baseline @{kk}",
        ],
        [
            [
                f"{c} {names.get(c, '')}",
                b.clean.cat_questions[c],
                *[_pct(v.clean.category_recall(c, kk)) for v in _variants(result)],
                _pct(b.clean.category_recall(c, kk)),
            ]
            for c in cats
        ],
    )

    lines += ["## Per conversation", "", f"Policy `{h.name}` / baseline.", ""]
    lines += _table(
        [
            "conversation",
            "turns",
            "questions",
            "facts",
            "write ampl.",
            *[f"recall@{k}" for k in ks],
            "coverage",
        ],
        [
            [
                sid,
                h.per_conversation[sid].turns,
                h.per_conversation[sid].questions,
                h.per_conversation[sid].stored,
                f"{h.per_conversation[sid].write_amplification:.3f}",
                *[
                    f"{_pct(h.per_conversation[sid].recall(k))} / "
                    f"{_pct(b.per_conversation[sid].recall(k))}"
                    for k in ks
                ],
                _pct(h.per_conversation[sid].coverage),
            ]
            for sid in result.conversations
        ],
    )

    if result.ratios:
        lines += [
            "## Context rot: clean store versus polluted",
            "",
            'For ratio r, r × (real turns) trivial synthetic turns ("haha yeah", "Just checking '
            'in about {word}", "You asked me about {word} last week", words sampled from the same '
            "session) are interleaved into each session, said by its speakers. The gated store "
            "receives them through the full pipeline; the baseline stores every one.",
            "",
        ]
        header = [
            "store",
            "ratio",
            "turns",
            "facts",
            "write ampl.",
            *[f"recall@{k}" for k in ks],
            f"lost @{kk}",
        ]
        prow: list[list[object]] = []
        for v in [*_variants(result), b]:
            for r in [0, *result.ratios]:
                f = v.clean if r == 0 else v.pollution[r]
                prow.append(
                    [
                        v.name,
                        f"{r}:1" if r else "clean",
                        f.turns,
                        f.stored,
                        f"{f.write_amplification:.3f}",
                        *[_pct(f.recall(k)) for k in ks],
                        _pct(v.rot_cost(r, kk)) if r else "",
                    ]
                )
        lines += _table(header, prow)
        lines += ["![recall against pollution](pollution.png)", ""]

    lines += ["## Drops by reason", ""]
    lines += [
        "Decisions that did not admit a turn or candidate as a new servable fact, from the "
        "audit store's `drop-reasons` report (clean run). `dedupe:near_duplicate` and "
        "`dedupe:same_value` merge into an existing fact; `dedupe:needs_confirmation_or_evidence` "
        "holds a pending fact (stored, not served).",
        "",
    ]
    reasons = sorted(
        {r for v in _variants(result) for r in v.drops},
        key=lambda r: -sum(v.drops[r] for v in _variants(result)),
    )
    lines += _table(
        ["stage:reason", *[v.name for v in _variants(result)]],
        [[r, *[v.drops[r] for v in _variants(result)]] for r in reasons]
        or [["(none)"] + [""] * len(result.policies)],
    )
    lines += ["![drops by reason](drops.png)", "", "## Redactions by kind", ""]
    lines += [
        "`journal:` kinds masked in the journal's copy of the turns; `redact:` kinds found in "
        "candidate facts by the redact stage (clean run).",
        "",
    ]
    kinds = sorted({k for v in _variants(result) for k in v.redactions})
    lines += _table(
        ["source:kind", *[v.name for v in _variants(result)]],
        [[k, *[v.redactions[k] for v in _variants(result)]] for k in kinds]
        or [["(none)"] + [""] * len(result.policies)],
    )
    lines += ["![redactions by kind](redactions.png)", ""]

    lines += [
        "## Definitions",
        "",
        "- **evidence recall@k**: share of questions whose top-k facts (both speakers searched "
        "with the question text, hits merged by reciprocal-rank-fusion score, decay off) cite "
        "an evidence `dia_id` through their `source_turn_ids`.",
        "- **write amplification**: new servable fact rows (dedupe ADD + SUPERSEDE, promotions "
        "included) per turn ingested; rows/turn also counts pending and superseded rows.",
        "- **coverage**: share of the `dia_id`s cited by LoCoMo's `observation` from which an "
        "active or superseded fact was stored.",
        "- **extractor calls/1k turns**: turns kept by triage, i.e. extraction calls (cost).",
        "",
        "## Run",
        "",
    ]
    timing = [
        [
            v.name,
            *[
                f"{v.ingest_s.get(r, 0.0):.1f} / {v.eval_s.get(r, 0.0):.1f}"
                for r in [0, *result.ratios]
            ],
        ]
        for v in [*_variants(result), b]
    ]
    lines += _table(
        [
            "store",
            *[f"ingest / score s ({'clean' if r == 0 else f'{r}:1'})" for r in [0, *result.ratios]],
        ],
        timing,
    )
    lines += [
        f"- embedding questions and baseline turns (batched, cached across runs): "
        f"{result.embed_s:.0f} s; total {result.elapsed_s:.0f} s",
        f"- command: `{command or result.command or '(library call)'}`",
        f"- data: `{result.data}`",
    ]
    lines += [f"- seed: {result.seed}; k: {', '.join(map(str, ks))}"]
    lines += [f"- {k}: {v}" for k, v in machine_info().items()]
    lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------ plots


def _new_figure(w: float = 7.0, h: float = 4.5) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(w, h), dpi=110, layout="constrained")


def _plot_recall_vs_wa(result: BenchResult, path: Path) -> None:
    fig = _new_figure()
    ax = fig.add_subplot()
    markers = ("o", "s", "^", "D")
    variants = [*_variants(result), result.baseline]
    placed: list[tuple[float, float]] = []
    for i, v in enumerate(variants):
        color = _BASELINE_COLOR if v is result.baseline else _COLORS[i % len(_COLORS)]
        wa = max(v.clean.write_amplification, 1e-3)
        ys = [v.clean.recall(k) for k in result.ks]
        # stack the labels of points that sit (almost) on top of each other
        near = sum(1 for x, y in placed if abs(x / wa - 1) < 0.15 and abs(y - max(ys)) < 0.05)
        placed.append((wa, max(ys)))
        ax.plot([wa] * len(ys), ys, color=color, linewidth=1, alpha=0.6)
        for j, k in enumerate(result.ks):
            ax.scatter(
                [wa],
                [v.clean.recall(k)],
                color=color,
                marker=markers[j % len(markers)],
                s=55,
                zorder=3,
                label=f"{v.name} @{k}",
            )
        ax.annotate(
            v.name,
            (wa, max(ys)),
            textcoords="offset points",
            xytext=(6, 6 + 13 * near),
            fontsize=9,
            color=color,
        )
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    was = [max(v.clean.write_amplification, 1e-3) for v in variants] + [0.35]
    ax.set_xscale("log")
    ax.set_xlim(min(was) / 1.6, max(was) * 1.8)
    ticks = [
        t for t in (0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 1.0, 2.0, 5.0) if t >= min(was) / 1.6
    ]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("write amplification (new facts per turn, log scale)")
    ax.set_ylabel("evidence recall")
    ax.set_ylim(0, 1.05)
    ax.axvline(0.35, color="grey", linestyle=":", linewidth=1)
    ax.text(0.35, 1.0, " WA target 0.35", color="grey", fontsize=8, va="top")
    ax.set_title("LoCoMo: recall@k against write amplification")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, ncol=2, loc="lower right")
    fig.savefig(path)


def _plot_pollution(result: BenchResult, path: Path) -> None:
    fig = _new_figure()
    ax = fig.add_subplot()
    ratios = [0, *result.ratios]
    kk = max(result.ks)
    for i, v in enumerate([*_variants(result), result.baseline]):
        is_base = v is result.baseline
        color = _BASELINE_COLOR if is_base else _COLORS[i % len(_COLORS)]
        ys = [(v.clean if r == 0 else v.pollution[r]).recall(kk) for r in ratios]
        ax.plot(
            ratios,
            ys,
            marker="osD^v"[i % 5],
            alpha=0.85,
            color=color,
            linestyle="--" if is_base else "-",
            label=f"{v.name} @{kk}",
        )
    ax.set_xticks(ratios, [f"{r}:1" if r else "clean" for r in ratios])
    ax.set_xlabel("trivial synthetic turns per real turn")
    ax.set_ylabel(f"evidence recall@{kk}")
    ax.set_ylim(0, 1.05)
    ax.set_title("Context rot: recall on a polluted store")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.savefig(path)


def _plot_counts(
    result: BenchResult, path: Path, attr: str, title: str, empty: str, xlabel: str
) -> None:
    variants = _variants(result)
    counters = [getattr(v, attr) for v in variants]
    keys = sorted({k for c in counters for k in c}, key=lambda k: sum(c[k] for c in counters))
    fig = _new_figure(7.5, max(2.5, 0.35 * len(keys) * max(1, len(variants)) ** 0.5 + 1.5))
    ax = fig.add_subplot()
    if not keys:
        ax.text(0.5, 0.5, empty, ha="center", va="center", fontsize=12, transform=ax.transAxes)
        ax.set_axis_off()
        ax.set_title(title)
        fig.savefig(path)
        return
    n = len(variants)
    height = 0.8 / n
    for i, (v, c) in enumerate(zip(variants, counters, strict=True)):
        ys = [j + (i - (n - 1) / 2) * height for j in range(len(keys))]
        vals = [c[k] for k in keys]
        bars = ax.barh(ys, vals, height=height, color=_COLORS[i % len(_COLORS)], label=v.name)
        ax.bar_label(bars, fontsize=7, padding=2)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_yticks(range(len(keys)), keys, fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.grid(True, axis="x", alpha=0.3)
    if n > 1:
        ax.legend(fontsize=8, loc="lower right")
    fig.savefig(path)


def write_report(result: BenchResult, out_dir: Path, *, command: str | None = None) -> list[Path]:
    """Write ``report.md`` and the PNG plots into ``out_dir``; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / "report.md"
    md.write_text(_markdown(result, command), encoding="utf-8")
    paths = [md, out_dir / "recall_vs_wa.png"]
    _plot_recall_vs_wa(result, paths[-1])
    if result.ratios:
        paths.append(out_dir / "pollution.png")
        _plot_pollution(result, paths[-1])
    _plot_counts(
        result,
        out_dir / "drops.png",
        "drops",
        "Drops by stage and reason (clean run)",
        "no drops",
        "decisions",
    )
    _plot_counts(
        result,
        out_dir / "redactions.png",
        "redactions",
        "Redactions by kind (clean run)",
        "no redactions found",
        "findings",
    )
    return [*paths, out_dir / "drops.png", out_dir / "redactions.png"]
