"""The README's layout table names every module of the tree, in the row of its folder.

A module added without a word in the table fails here; a name may be given with a
trailing ``*`` for a family (``extract_build_*``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# the row's first cell (as written in the table) -> the folder whose modules it names
ROWS = {
    "`memgate/core/`": "memgate/core",
    "`stages/` → `memgate.stages`": "stages",
    "`sinks/` → `memgate.sinks`": "sinks",
    "`streams/` → `memgate.streams`": "streams",
    "`memgate/`": "memgate",
    "`memgate/cli/`": "memgate/cli",
    "`tools/`": "tools",
}
SKIP = {"__init__", "__main__"}


def layout_rows() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Layout") :]
    section = section[: section.index("\n## ", 3)]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] in ROWS:
            rows[cells[0]] = " | ".join(cells[1:])
    return rows


def named(row: str) -> tuple[set[str], list[str]]:
    words = set(re.findall(r"`([A-Za-z_0-9]+)(?:/|\.py)?`", row))
    families = [w[:-1] for w in re.findall(r"`([A-Za-z_0-9]+\*)`", row)]
    return words, families


def modules(folder: str) -> list[str]:
    base = ROOT / folder
    names = [p.stem for p in base.glob("*.py") if p.stem not in SKIP]
    names += [
        p.name
        for p in base.iterdir()
        if p.is_dir()
        and not p.is_symlink()
        and (p / "__init__.py").exists()
        and f"{folder}/{p.name}" not in ROWS.values()  # a folder with its own row
    ]
    return sorted(names)


def test_every_row_is_there() -> None:
    assert set(layout_rows()) == set(ROWS)


@pytest.mark.parametrize("cell", sorted(ROWS))
def test_the_row_names_every_module_of_its_folder(cell: str) -> None:
    words, families = named(layout_rows()[cell])
    missing = [
        m
        for m in modules(ROWS[cell])
        if m not in words and not any(m.startswith(f) for f in families)
    ]
    assert missing == [], f"README layout row {cell} does not name: {missing}"


# words of a row that name a function or a class rather than a module
NOT_MODULES = {"mask_all", "Detector"}


@pytest.mark.parametrize("cell", ["`stages/` → `memgate.stages`", "`sinks/` → `memgate.sinks`",
                                  "`streams/` → `memgate.streams`"])  # fmt: skip
def test_the_package_rows_name_no_module_that_is_gone(cell: str) -> None:
    words, _ = named(layout_rows()[cell])
    gone = sorted(words - set(modules(ROWS[cell])) - NOT_MODULES)
    assert gone == [], f"README layout row {cell} names modules that do not exist: {gone}"
