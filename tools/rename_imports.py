#!/usr/bin/env python3
"""Rewrite module references to the ``memgate.*`` namespace and the ``memgate.core`` layer.

Idempotent and sed-like: run it on a tree (default: the repository this file is
in) after merging a branch written against the old names, then let ruff sort
the imports it touched::

    python tools/rename_imports.py [ROOT] [--check]
    ruff check --select I --fix .

What it rewrites, in ``*.py`` and ``*.md`` files (not under ``.venv``, ``.git``
or ``build``):

* module renames (:data:`MODULES`): ``stages.x`` -> ``memgate.stages.x`` (also
  ``streams``, ``sinks``), ``memgate.events`` -> ``memgate.core.events`` and the
  other modules that moved into the core layer; in import statements, in
  dotted references in docstrings and strings (``:mod:`sinks.audit```, a logger
  name), and ``from memgate import events`` forms;
* names that moved out of a module (:data:`SYMBOLS`): ``from memgate.sinks.base
  import SearchQuery, rrf_fuse`` becomes two imports, one from
  ``memgate.core.stores``; a dotted reference ``sinks.base.SearchQuery`` follows.

A bare ``stages`` (a local variable, a word in prose) is left alone: a top-level
name is rewritten only when an import names it or a known module follows it.
``--check`` lists the files that would change and exits 1 if any would.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TOP = ("stages", "streams", "sinks")

#: old module -> new module (a prefix rename: submodules follow)
MODULES: dict[str, str] = {
    "stages": "memgate.stages",
    "streams": "memgate.streams",
    "sinks": "memgate.sinks",
    # the core layer (memgate/core): imports nothing else of the project
    "memgate.events": "memgate.core.events",
    "memgate.errors": "memgate.core.errors",
    "memgate.embedding": "memgate.core.embedding",
    "memgate.settings": "memgate.core.settings",
}

#: (old module, name) -> new module, applied after MODULES (so keys use new names)
SYMBOLS: dict[tuple[str, str], str] = {
    # the store-view protocols: what stages read through, what sinks implement
    **{
        ("memgate.sinks.base", name): "memgate.core.stores"
        for name in ("SearchQuery", "SearchHit", "RetrievalStore", "AuditStore")
    },
    ("memgate.stages.dedupe", "FactView"): "memgate.core.stores",
    # one sentence splitter, one question detector
    ("memgate.stages.triage", "split_sentences"): "memgate.core.text",
    # the trusted-source syntax (settings check it, the write policy applies it)
    ("memgate.stages.policy", "parse_trusted_sources"): "memgate.core.sources",
}

SKIP_DIRS = {".venv", ".git", "build", "dist", "__pycache__", ".mypy_cache", ".ruff_cache"}


def _submodules(root: Path) -> set[str]:
    """Module names under the three top-level packages (``stages.triage``, ...)."""
    found: set[str] = set()
    for top in TOP:
        for base in (root / top, root / "memgate" / top):
            if base.is_dir():
                found.update(p.stem for p in base.glob("*.py") if p.stem != "__init__")
    return found


def _rename_modules(text: str, submodules: set[str]) -> str:
    # import statements: "from stages import x", "from stages.x import y", "import stages.x"
    tops = "|".join(TOP)
    text = re.sub(
        rf"^(\s*(?:>>> |\.\.\. )?(?:from|import)\s+)({tops})(?=[\s.])",
        lambda m: m.group(1) + MODULES[m.group(2)],
        text,
        flags=re.MULTILINE,
    )
    # dotted references to a known submodule anywhere (docstrings, strings, code)
    if submodules:
        subs = "|".join(sorted(map(re.escape, submodules), key=len, reverse=True))
        text = re.sub(
            rf"(?<![\w.])({tops})\.({subs})\b",
            lambda m: f"{MODULES[m.group(1)]}.{m.group(2)}",
            text,
        )
    # renames inside memgate (old -> new, both dotted); longest first
    for old, new in sorted(MODULES.items(), key=lambda kv: -len(kv[0])):
        if old in TOP:
            continue
        text = re.sub(rf"(?<![\w.]){re.escape(old)}\b", new, text)
        parent, _, leaf = old.rpartition(".")
        new_parent, _, new_leaf = new.rpartition(".")
        # "from memgate import events" -> "from memgate.core import events"
        text = re.sub(
            rf"^(\s*(?:>>> |\.\.\. )?from\s+){re.escape(parent)}(\s+import\s+){re.escape(leaf)}\b",
            lambda m, np_=new_parent, nl=new_leaf, lf=leaf: (
                f"{m.group(1)}{np_}{m.group(2)}{nl}" + (f" as {lf}" if nl != lf else "")
            ),
            text,
            flags=re.MULTILINE,
        )
    return text


_FROM_RE = re.compile(
    r"^(?P<indent>[ \t]*(?:>>> |\.\.\. )?)from[ \t]+(?P<mod>[\w.]+)[ \t]+import[ \t]+"
    r"(?:\((?P<paren>[^)]*)\)|(?P<line>[^\n(]*?))[ \t]*$",
    re.MULTILINE,
)


def _split_names(body: str) -> list[str]:
    out = []
    for part in re.sub(r"#[^\n]*", "", body).replace("\n", " ").split(","):
        part = " ".join(part.split())
        if part:
            out.append(part)
    return out


def _move_symbols(text: str) -> str:
    if not SYMBOLS:
        return text
    moved_from = {mod for mod, _ in SYMBOLS}

    def fix(m: re.Match[str]) -> str:
        mod = m.group("mod")
        if mod not in moved_from:
            return m.group(0)
        names = _split_names(m.group("paren") if m.group("paren") is not None else m.group("line"))
        groups: dict[str, list[str]] = {}
        for n in names:
            target = SYMBOLS.get((mod, n.split(" as ")[0].strip()), mod)
            groups.setdefault(target, []).append(n)
        if list(groups) == [mod]:
            return m.group(0)
        indent = m.group("indent")
        return "\n".join(
            f"{indent}from {target} import {', '.join(ns)}" for target, ns in groups.items()
        )

    text = _FROM_RE.sub(fix, text)
    for (mod, name), target in SYMBOLS.items():
        text = re.sub(rf"(?<![\w.]){re.escape(mod)}\.{re.escape(name)}\b", f"{target}.{name}", text)
    return text


def rewrite(text: str, submodules: set[str]) -> str:
    return _move_symbols(_rename_modules(text, submodules))


def files(root: Path) -> list[Path]:
    seen: set[Path] = set()
    out: list[Path] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(p in SKIP_DIRS for p in rel.parts) or path.suffix not in (".py", ".md"):
            continue
        if any(root.joinpath(*rel.parts[: i + 1]).is_symlink() for i in range(len(rel.parts))):
            continue  # memgate/stages -> ../stages: the real file is rewritten once
        real = path.resolve()
        if real not in seen and path.is_file():
            seen.add(real)
            out.append(path)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--check", action="store_true", help="list files that would change")
    args = ap.parse_args(argv)
    root: Path = args.root.resolve()
    submodules = _submodules(root)
    changed = []
    for path in files(root):
        if path.resolve() == Path(__file__).resolve():
            continue
        old = path.read_text(encoding="utf-8")
        new = rewrite(old, submodules)
        if new != old:
            changed.append(path)
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for path in changed:
        print(path.relative_to(root))
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
