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

``XDG_DATA_HOME`` points into the same folder: a test that builds ``Settings()`` without a
``data_dir`` gets the default data dir (``$XDG_DATA_HOME/memgate``), and that must not be
the machine's own ``~/.local/share/memgate``. A run that wrote there once moved that data
dir's key into the run's temporary config folder, deleted at the end of the run, and
the next run on the same machine found a data dir with digests and no key.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_SAVED: dict[str, str | None] = {}
# each variable and its folder inside the run's temporary folder ("" = the folder itself)
_VARIABLES = {"XDG_CONFIG_HOME": "", "XDG_DATA_HOME": "data"}


def pytest_configure(config: pytest.Config) -> None:
    folder = tempfile.mkdtemp(prefix="memgate-test-config-")
    _SAVED["folder"] = folder
    for name, path in _VARIABLES.items():
        _SAVED[name] = os.environ.get(name)
        os.environ[name] = os.path.join(folder, path) if path else folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = _SAVED.pop("folder", None)
    if folder is None:
        return
    for name in _VARIABLES:
        previous = _SAVED.pop(name, None)
        if previous is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = previous
    shutil.rmtree(folder, ignore_errors=True)
