"""What the training scripts of the two sentence classifiers (``train_keep.py``,
``train_triage.py``) share: precision/recall/F1 of their reports and the end of a run,
which writes the model file or, with ``--check``, compares it with the committed one."""

from __future__ import annotations

from pathlib import Path


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    """Precision, recall and F1 of the counts (0 where a ratio has no denominator)."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def write_or_check(
    model: Path, text: str, *, root: Path, name: str, script: str, check: bool
) -> int:
    """Write ``text`` to the model file, or with ``check`` say whether the committed file is
    the same (exit status 1 if not)."""
    if check:
        same = model.exists() and model.read_text("utf-8") == text
        print(f"{name} model is up to date" if same else
              f"{name} model differs: run {script}")
        return 0 if same else 1
    model.write_text(text, "utf-8")
    print(f"wrote {model.relative_to(root)}")
    return 0
