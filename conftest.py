"""Shared by every test tier and the doctests of ``memgate/``: no test writes into ~.

Without ``MEMGATE_HMAC_KEY`` a data dir's HMAC key file is made outside it, under
``$XDG_CONFIG_HOME/memgate/keys`` (``~/.config`` without it; :mod:`memgate.keys`). Every
test's data dir lives under a temporary folder, so its key file must too: the run
points ``XDG_CONFIG_HOME`` at a temporary folder of its own, set before collection so
that every subprocess started with ``os.environ`` (the CLI, workers, modules that copy
the environment at import) inherits it. A test that builds an environment from nothing
must pass ``XDG_CONFIG_HOME`` (or ``MEMGATE_HMAC_KEY``) itself. One folder for the whole
run, not one per test: module-scoped data dirs outlive a test, and each data dir's key
file is named by its own random id, so two tests never share a key file.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_SAVED: dict[str, str | None] = {}


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="memgate-test-config-")
    _SAVED["XDG_CONFIG_HOME"] = os.environ.get("XDG_CONFIG_HOME")
    _SAVED["folder"] = folder
    os.environ["XDG_CONFIG_HOME"] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = _SAVED.pop("folder", None)
    if folder is None:
        return
    previous = _SAVED.pop("XDG_CONFIG_HOME", None)
    if previous is None:
        os.environ.pop("XDG_CONFIG_HOME", None)
    else:
        os.environ["XDG_CONFIG_HOME"] = previous
    shutil.rmtree(folder, ignore_errors=True)
