"""The README's "Using memgate from Python" example runs and prints what the README says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_python_example_runs_as_printed(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    marker = text.index("<!-- readme-python:")
    code, printed = re.findall(r"```(?:python)?\n(.*?)```", text[marker:], re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"data_dir": tmp_path})
    assert out.getvalue() == printed
