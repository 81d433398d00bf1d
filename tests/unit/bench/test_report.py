"""The benchmark report from hand-made figures: markdown sections and PNG files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from memgate.bench.locomo import BenchResult, Figures, VariantResult
from memgate.bench.report import machine_info, write_report

PNG = b"\x89PNG\r\n\x1a\n"


def figures(turns: int, stored: int, hits5: int, hits10: int, covered: int) -> Figures:
    return Figures(
        turns=turns,
        stored=stored,
        rows=stored,
        kept=turns,
        questions=10,
        hits=Counter({5: hits5, 10: hits10}),
        answer_token_sum={5: 2.0, 10: 3.0},
        answer_questions=10,
        observed=20,
        covered=covered,
        cat_questions=Counter({1: 4, 4: 6}),
        cat_hits=Counter({(1, 10): 2, (4, 10): hits10 - 2, (1, 5): 1, (4, 5): hits5 - 1}),
    )


def variant(
    name: str, stored: int, ratios: tuple[int, ...], **counts: Counter[str]
) -> VariantResult:
    v = VariantResult(name=name, clean=figures(100, stored, 5, 7, 12))
    v.per_conversation["conv-1"] = v.clean
    for r in ratios:
        v.pollution[r] = figures(100 * (1 + r), stored, 4, 6, 12)
    v.drops = counts.get("drops", Counter())
    v.redactions = counts.get("redactions", Counter())
    return v


def result(ratios: tuple[int, ...], **counts: Counter[str]) -> BenchResult:
    return BenchResult(
        data="locomo.json",
        policies=["balanced", "permissive"],
        ks=[5, 10],
        ratios=list(ratios),
        seed=0,
        gated={
            "balanced": variant("balanced", 20, ratios, **counts),
            "permissive": variant("permissive", 40, ratios, **counts),
        },
        baseline=variant("baseline", 100, ratios),
        conversations=["conv-1"],
        turns=100,
        questions=10,
        skipped_questions=0,
        elapsed_s=1.5,
        embedder="hashing-256",
        extractor="rules-1",
        command="memgate bench locomo --all-presets",
    )


def test_report_has_every_section_and_plot(tmp_path: Path) -> None:
    res = result(
        (1, 5),
        drops=Counter({"triage:filler": 30, "extract:no_fact": 50}),
        redactions=Counter({"journal:email": 2}),
    )
    written = write_report(res, tmp_path / "r")
    names = {p.name for p in written}
    assert names == {
        "report.md",
        "recall_vs_wa.png",
        "pollution.png",
        "drops.png",
        "redactions.png",
    }
    for p in written:
        assert p.stat().st_size > 0
        if p.suffix == ".png":
            assert p.read_bytes().startswith(PNG)
    md = (tmp_path / "r" / "report.md").read_text()
    for section in (
        "## Headline",
        "## Every preset",
        "## Answers with memory versus without",
        "## Recall by question category",
        "## Per conversation",
        "## Context rot",
        "## Drops by reason",
        "## Redactions by kind",
        "## Definitions",
        "memgate bench locomo --all-presets",
        "triage:filler",
        "journal:email",
        "cores:",
    ):
        assert section in md, section
    assert "| write amplification (facts per turn) | 0.200 | 1.000 | ≤ 0.35 | met |" in md


def test_report_without_pollution_drops_or_redactions(tmp_path: Path) -> None:
    written = write_report(result(()), tmp_path)
    assert "pollution.png" not in {p.name for p in written}
    md = (tmp_path / "report.md").read_text()
    assert "## Context rot" not in md
    assert "(none)" in md
    assert (tmp_path / "redactions.png").read_bytes().startswith(PNG)


def test_machine_info_names_cores_and_ram() -> None:
    info = machine_info()
    assert info["cores"] and info["ram"]


def test_the_headline_is_balanced_unless_told_otherwise() -> None:
    res = result(())
    res.policies = ["permissive", "balanced"]
    assert res.headline.name == "balanced"
    assert res.as_json()["policy"] == "balanced"
    res.headline_policy = "permissive"
    assert res.targets()["policy"] == "permissive"
