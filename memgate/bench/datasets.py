"""Where the LoCoMo data is read from: it is never copied into the repository.

Looked up, in order: ``MEMGATE_LOCOMO_DIR`` (a directory holding ``locomo-dev.json``),
then ``shared/datasets/locomo`` beside the current directory or the source checkout,
or beside any of their parents (the workplace keeps ``../shared/datasets`` next to
each checkout). When nothing is found, :class:`DatasetMissing` names every place
looked and how to point at the data.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_DIR = "MEMGATE_LOCOMO_DIR"
DEV_FILE = "locomo-dev.json"
_RELATIVE = Path("shared") / "datasets" / "locomo"
#: the source checkout this module was imported from (``memgate/bench/`` → the root)
SOURCE_ROOT = Path(__file__).resolve().parents[2]


class DatasetMissing(FileNotFoundError):
    """The LoCoMo data is not where it was looked for."""

    def __init__(self, name: str, looked: list[Path]) -> None:
        places = ", ".join(str(p) for p in looked)
        super().__init__(
            f"the LoCoMo file {name} was not found (looked in: {places}); set {ENV_DIR} to the "
            "directory that holds it, or keep it at ../shared/datasets/locomo beside the checkout"
        )
        self.looked = looked


def candidate_dirs(extra_roots: list[Path] | None = None) -> list[Path]:
    """Every directory the data may be in, most specific first, without repeats."""
    out: list[Path] = []
    env = os.environ.get(ENV_DIR)
    if env:
        out.append(Path(env).expanduser())
    roots = [Path.cwd(), SOURCE_ROOT, *(extra_roots or [])]
    for root in roots:
        for base in (root, *root.parents):
            path = base / _RELATIVE
            if path not in out:
                out.append(path)
    return out


def find_locomo(name: str = DEV_FILE, extra_roots: list[Path] | None = None) -> Path:
    """The path of LoCoMo file ``name``; :class:`DatasetMissing` when it is nowhere."""
    if "/" in name or "\\" in name or name in {"", ".", ".."}:
        raise ValueError(f"{name!r}: a file name inside the LoCoMo directory is expected")
    looked = candidate_dirs(extra_roots)
    env = os.environ.get(ENV_DIR)
    for directory in looked:
        path = directory / name
        try:
            if path.is_file():
                return path
        except OSError:
            continue
        if env and directory == Path(env).expanduser():
            # an explicit setting that is wrong is an error, not a cue to look elsewhere
            raise DatasetMissing(name, [directory])
    raise DatasetMissing(name, looked)
