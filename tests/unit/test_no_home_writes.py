"""No test reads or writes the machine's own data dir or key folder.

Stop 25's CI failed on a machine where an earlier run had used the default data dir
(``~/.local/share/memgate``): that run moved the data dir's old key into the run's
temporary config folder, which was deleted at its end, and the next run found a data
dir holding digests and no key. The root ``conftest.py`` now points both XDG folders of
the run at a temporary folder; these tests fail when either is left at ``~``.
"""

from __future__ import annotations

import os
from pathlib import Path

from memgate.core.settings import Settings


def _under_home(path: Path) -> bool:
    return path.resolve().is_relative_to(Path.home().resolve())


def test_the_default_data_dir_of_a_test_is_not_the_machine_s() -> None:
    assert not _under_home(Settings().data_dir), Settings().data_dir


def test_the_key_folder_of_a_test_is_not_the_machine_s() -> None:
    assert not _under_home(Path(os.environ["XDG_CONFIG_HOME"]))
