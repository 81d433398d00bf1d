"""The wheel: one name in site-packages, typed, with its data, importable as memgate.*.

The wheel is built once per session from a copy of the working tree (so a stale
``build/`` folder cannot add or hide files), without build isolation: the dev
extra installs the build backend.
"""

from __future__ import annotations

import re
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from email.message import Message
from email.parser import Parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOP_FOLDERS = ("stages", "streams", "sinks")
_IGNORE = shutil.ignore_patterns(
    ".*", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", "tests", "benchmarks"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=_IGNORE)
    out = tmp / "out"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (whl,) = out.glob("memgate-*.whl")
    yield whl


def _names(whl: Path) -> list[str]:
    with zipfile.ZipFile(whl) as z:
        return z.namelist()


def test_one_name_at_the_top_of_site_packages(wheel: Path) -> None:
    tops = {n.split("/", 1)[0] for n in _names(wheel)}
    dist_info = {t for t in tops if t.endswith(".dist-info")}
    assert len(dist_info) == 1
    assert tops - dist_info == {"memgate"}


def test_the_top_folders_install_under_memgate(wheel: Path) -> None:
    names = set(_names(wheel))
    for folder in TOP_FOLDERS:
        sources = sorted(p.name for p in (ROOT / folder).glob("*.py"))
        assert sources, folder
        for name in sources:
            assert f"memgate/{folder}/{name}" in names, (folder, name)


def test_real_files_not_links(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        for info in z.infolist():
            mode = info.external_attr >> 16
            assert not stat.S_ISLNK(mode), info.filename


def test_py_typed_and_data_files_shipped(wheel: Path) -> None:
    names = set(_names(wheel))
    assert "memgate/py.typed" in names
    data = [p for p in (ROOT / "memgate" / "data").rglob("*") if p.is_file()]
    assert data
    for p in data:
        assert "memgate/" + p.relative_to(ROOT / "memgate").as_posix() in names, p


def test_wheel_imports_as_memgate_namespace(wheel: Path, tmp_path: Path) -> None:
    """Unpacked first on the path, the wheel alone provides memgate.stages and friends."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    mods = ("memgate.stages.triage", "memgate.streams.pipeline", "memgate.sinks.embedded")
    code = (
        f"import {', '.join(mods)}\n"
        "import importlib.util, pathlib, sys\n"
        f"for m in {mods!r}:\n"
        "    assert pathlib.Path(sys.modules[m].__file__).is_relative_to(sys.argv[1]), m\n"
        "for m in ('stages', 'streams', 'sinks'):\n"
        "    assert importlib.util.find_spec(m) is None, m\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(site)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": ""},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr



def _metadata(whl: Path) -> Message:
    with zipfile.ZipFile(whl) as z:
        (meta,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        return Parser().parsestr(z.read(meta).decode())


def test_metadata_license_and_classifiers(wheel: Path) -> None:
    msg = _metadata(wheel)
    assert msg["Name"] == "memgate"
    assert msg["License-Expression"] == "Apache-2.0"
    classifiers = msg.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers
    assert "Programming Language :: Python :: 3.11" in classifiers


def test_extras_say_what_they_are_for(wheel: Path) -> None:
    msg = _metadata(wheel)
    extras = set(msg.get_all("Provides-Extra") or [])
    assert {"kafka", "opensearch", "clickhouse", "anthropic", "bench", "http", "mcp", "langgraph",
            "all", "dev"} <= extras
    requires = msg.get_all("Requires-Dist") or []
    core = {r.split(";")[0].split(">")[0].split("=")[0].strip() for r in requires if ";" not in r}
    # the embedded path alone: no Kafka, OpenSearch, Anthropic or plotting library, and
    # tenacity gone (one retry helper in memgate.core.retry)
    assert not core & {"faust-streaming", "aiokafka", "opensearch-py", "anthropic", "matplotlib",
                       "tenacity", "fastapi", "uvicorn", "mcp", "langgraph", "onnxruntime"}
    assert {"chdb", "clickhouse-connect", "numpy", "tokenizers"} <= core

    def extra(name: str) -> set[str]:
        return {
            re.split(r"[<>=!~ ]", r.split(";")[0], maxsplit=1)[0].strip()
            for r in requires
            if r.replace(" ", "").endswith(f'extra=="{name}"')
        }

    # uvloop: the worker's event loop, less CPU per message (streams/faust_worker.py)
    assert extra("kafka") == {"faust-streaming", "aiokafka", "uvloop"}
    assert extra("opensearch") == {"opensearch-py", "orjson"}  # orjson: answers parsed 6x faster
    assert extra("anthropic") == {"anthropic"}
    assert extra("bench") == {"matplotlib"}
    assert extra("clickhouse") == {"clickhouse-connect"}
    assert extra("http") == {"fastapi", "uvicorn"}
    assert extra("mcp") == {"mcp", "uvicorn"}
    assert extra("langgraph") == {"langgraph"}
    assert extra("onnx") == {"onnx", "onnxruntime"}
    everything = "memgate[anthropic,bench,clickhouse,http,kafka,langgraph,mcp,onnx,opensearch]"
    assert everything in extra("all")
