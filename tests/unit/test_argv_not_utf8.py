"""A byte that is not UTF-8 in any text argument of any command is one usage error (attack20).

Python reads such a byte in ``argv`` as a lone surrogate (U+DC80-U+DCFF). Session 19
refused it in ``memgate search`` and ``memgate forget --fact``; the other text options
let it through: ``memgate audit --sql $'\\xff'`` failed inside chDB's binding
("incompatible function arguments", naming its C++ signature), ``memgate keys create
--tenant $'\\xff'`` called U+DCFF "a control character", ``memgate serve --host
$'\\xff'`` printed a traceback, ``--data-dir $'\\xff'`` failed opening the audit store,
``keys create --label $'\\xff'`` stored it. Every text option of every command is now
checked before the command runs; the test below walks the whole command tree, so a new
option without the check fails it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any, get_args

import pytest
import typer

from memgate.cli import app
from memgate.core.errors import ConfigError
from memgate.core.events import id_problem
from memgate.core.settings import load_settings

BAD = "\udcff"  # what Python makes of the byte 0xFF in argv


def _leaves(cmd: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    subs = getattr(cmd, "commands", None) or {}
    found = [(path, cmd)] if not subs else []
    for name, sub in subs.items():
        found += _leaves(sub, (*path, name))
    return found


def _is_text(param: Any) -> bool:
    annotation = param.type_descriptor.annotation
    kinds = get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
    return str in kinds


def _text_params() -> list[tuple[tuple[str, ...], Any, Any]]:
    root = typer.main.get_command(app)
    found = [((), root, p) for p in root.params if _is_text(p)]
    for path, leaf in _leaves(root):
        found += [(path, leaf, p) for p in leaf.params if _is_text(p)]
    return found


TEXT_PARAMS = _text_params()


def test_the_walk_finds_the_text_options() -> None:
    names = {(" ".join(path), p.name) for path, _, p in TEXT_PARAMS}
    for known in [("audit", "sql"), ("audit", "report"), ("keys create", "tenant"),
                  ("keys create", "label"), ("keys revoke", "key_id"), ("serve", "host"),
                  ("mcp", "user"), ("search", "query"), ("", "data_dir")]:  # fmt: skip
        assert known in names
    assert len(names) > 40


@pytest.mark.parametrize(
    ("path", "command", "param"),
    TEXT_PARAMS,
    ids=[f"{' '.join(path) or 'memgate'}:{p.name}" for path, _, p in TEXT_PARAMS],
)
def test_every_text_option_refuses_a_byte_that_is_not_utf8(
    path: tuple[str, ...], command: Any, param: Any
) -> None:
    """Parsing only (``make_context`` runs the option callbacks, never the command)."""
    given = [param.opts[0], f"x{BAD}"] if param.param_type_name == "option" else [f"x{BAD}"]
    with pytest.raises(Exception) as info:
        command.make_context(" ".join(("memgate", *path)), given)
    message = info.value.format_message() if hasattr(info.value, "format_message") else ""
    assert type(info.value).__name__ == "BadParameter", (type(info.value), message)
    assert message.endswith(": not valid UTF-8 (the lone surrogate U+DCFF at position 2 is "
                              "the byte 0xFF): pass it as UTF-8 text"), message  # fmt: skip


def _memgate(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "MEMGATE_EMBEDDER": "hashing", "COLUMNS": "250"}
    code = "import sys; from memgate.cli import run; sys.argv[0] = 'memgate'; run()"
    argv = [a.encode("utf-8", "surrogateescape") for a in args]
    return subprocess.run(
        [sys.executable.encode(), b"-c", code.encode(), b"--data-dir",
         str(tmp_path / "data").encode(), *argv],
        capture_output=True, timeout=120, env=env,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "named"),
    [(["audit", "--sql", BAD], b"'--sql'"),
     (["keys", "create", "--tenant", BAD], b"'--tenant' / '-t'"),
     (["serve", "--host", BAD, "--port", "0"], b"'--host'")],
)  # fmt: skip
def test_the_commands_of_the_report_say_so_in_one_line(
    tmp_path: Path, args: list[str], named: bytes
) -> None:
    done = _memgate(tmp_path, *args)
    assert done.returncode == 2, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"control character" not in done.stderr
    lines = [ln for ln in done.stderr.splitlines() if b"not valid UTF-8" in ln]
    assert len(lines) == 1, done.stderr
    assert b"Invalid value for " + named in lines[0]
    assert b"the byte 0xFF): pass it as UTF-8 text" in lines[0]
    assert not (tmp_path / "data" / "api_keys.json").exists()


def test_a_data_dir_that_is_not_utf8_is_a_setting_error(tmp_path: Path) -> None:
    """MEMGATE_DATA_DIR (or a config file) with such a byte: chDB's binding refused the path
    ("incompatible constructor arguments") after the SQLite store was opened."""
    with pytest.raises(ConfigError, match=r"data_dir: the path is not valid UTF-8 \(the lone "
                       r"surrogate U\+DCFF at position \d+ is the byte 0xFF\)"):  # fmt: skip
        load_settings(data_dir=str(tmp_path / f"d{BAD}"))


def test_an_id_with_a_lone_surrogate_is_not_called_a_control_character() -> None:
    problem = id_problem(f"alice{BAD}")
    assert problem is not None
    assert problem.startswith("has a lone surrogate U+DCFF at position 6"), problem
    assert "control character" not in problem


@pytest.mark.parametrize(
    ("given", "named"),
    [("al\r\nSet-Cookie: x=1", "U+000D"), ("al\tice", "U+0009"), ("al\nice", "U+000A")],
)
def test_a_carriage_return_in_an_id_is_a_control_character_not_a_space(
    given: str, named: str
) -> None:
    """``GET /v1/tenants/t1/users/al%0d%0aSet-Cookie:...`` was refused (422, no header
    injected) as having "a space character (U+000D)" (Python's ``isspace``)."""
    problem = id_problem(given)
    assert problem is not None
    assert problem.startswith(f"has a control character ({named}) at position 3"), problem
