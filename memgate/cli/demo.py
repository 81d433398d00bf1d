"""``memgate demo``: a bundled sample through the gate (every kind of decision), then searches."""

from __future__ import annotations

import shutil
from importlib import resources
from pathlib import Path

import typer

from memgate import render
from memgate.cli.common import console, errors
from memgate.cli.ingest import ingest_file
from memgate.cli.options import global_options, session
from memgate.cli.search import show_search
from memgate.core.errors import MemgateError

app = typer.Typer()

#: (tenant, user, query, as-of) of the searches the demo shows.
DEMO_SEARCHES: list[tuple[str, str, str, str | None]] = [
    ("acme", "alice", "how do we deploy?", None),
    ("acme", "alice", "how do we deploy?", "2024-03-05T00:00:00Z"),
    ("acme", "alice", "what editor does she use", None),
    ("acme", "alice", "answer language", None),
    ("globex", "bob", "how do we deploy?", None),
]


@app.command()
@global_options()
def demo(ctx: typer.Context) -> None:
    """Ingest a small bundled sample showing every kind of decision, then search it."""
    from memgate.inputs import ReadErrors, read_jsonl

    rt = session(ctx).runtime
    demo_dir = rt.settings.data_dir / "demo"
    with errors():
        if demo_dir.is_symlink() or demo_dir.is_file():
            raise MemgateError(f"{demo_dir} is not the demo's folder; move it away and retry")
        if demo_dir.exists():
            _clear(demo_dir)
    rt.settings = rt.settings.model_copy(update={"data_dir": demo_dir})
    sample = resources.files("memgate") / "data" / "demo.jsonl"
    with resources.as_file(sample) as path, errors():
        summary, rejected = ingest_file(rt, Path(path))
        # rank as of the sample's last turn, so its 2024 facts are not aged to today
        last = max(t.ts for t in read_jsonl(Path(path), ReadErrors())).isoformat()
    console.print(render.summary_table(summary, "memgate demo: what the gate decided"))
    for tenant, user, query, as_of in DEMO_SEARCHES:
        show_search(rt, query, tenant, user, k=3, as_of=as_of, now=last)
    console.print(
        render.text(f"\nstores: {demo_dir} (try `memgate --data-dir {demo_dir} audit verdicts`)")
    )
    if rejected:
        raise typer.Exit(1)


def _clear(folder: Path) -> None:
    """Everything in the demo's folder but its id (:data:`memgate.keys.DATA_DIR_ID_FILE`):
    each run keeps the one key file made for it, outside, rather than leave a new one."""
    from memgate.keys import DATA_DIR_ID_FILE

    for child in folder.iterdir():
        if child.name == DATA_DIR_ID_FILE:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
