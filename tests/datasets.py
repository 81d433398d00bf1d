"""The LoCoMo file for tests that read real conversations: found, or the test fails.

A missing file fails the test with the places looked and the setting to use
(``MEMGATE_LOCOMO_DIR``), never a silent skip. Beside the places
:func:`memgate.bench.datasets.find_locomo` looks, a clone of a local checkout
(``git clone . "$(mktemp -d)"``) also looks beside the checkout it was cloned from.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memgate.bench.datasets import DEV_FILE, SOURCE_ROOT, DatasetMissing, find_locomo


def _origin_roots() -> list[Path]:
    try:
        url = subprocess.run(
            ["git", "-C", str(SOURCE_ROOT), "config", "--get", "remote.origin.url"],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return []
    url = url.removeprefix("file://")
    if not url or "://" in url or not Path(url).is_dir():
        return []  # a remote URL: nothing beside it on this machine
    return [Path(url).resolve()]


def locomo_file(name: str = DEV_FILE) -> Path:
    try:
        return find_locomo(name, extra_roots=_origin_roots())
    except DatasetMissing as exc:
        pytest.fail(str(exc), pytrace=False)
