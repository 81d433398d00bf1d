"""The ``memgate`` command line: one module per command group, put together here.

Each module holds a ``typer.Typer`` with its commands and their rendering
(typer's "one file per command"); this one adds them to :data:`app`, with the
global options (:mod:`memgate.cli.options`, accepted before the command and
after it) and ``--version``. The command that runs builds the settings once
and passes them down.
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from memgate.cli import (
    audit,
    bench,
    config,
    demo,
    forget,
    hmac_keys,
    ingest,
    lifecycle,
    mcpserve,
    scan,
    search,
    serve,
    setup,
    worker,
)
from memgate.cli import eval as evaluation
from memgate.cli.options import record_global_options

app = typer.Typer(
    name="memgate",
    help="A streaming write gate for the long-term memory of AI agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def package_version() -> str:
    """The installed distribution's version (``importlib.metadata``)."""
    try:
        return version("memgate")
    except PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


def _print_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"memgate {package_version()}\n")
        raise typer.Exit()


@app.callback()
@record_global_options
def main(
    ctx: typer.Context,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print memgate's version and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """A streaming write gate for the long-term memory of AI agents."""


app.add_typer(ingest.app)
app.add_typer(search.app)  # search, facts
app.add_typer(forget.app)
app.add_typer(lifecycle.app)  # consolidate
app.add_typer(audit.app)
app.add_typer(scan.app)
app.add_typer(config.app)
app.add_typer(demo.app)
app.add_typer(worker.app)  # worker, produce
app.add_typer(bench.app, name="bench")
app.add_typer(evaluation.app)
app.add_typer(serve.app)  # serve
app.add_typer(serve.keys_app, name="keys")
app.add_typer(hmac_keys.app, name="hmac-keys")  # hmac-keys list, prune
app.add_typer(mcpserve.app)  # mcp
app.add_typer(setup.app, name="setup")  # setup opensearch


def run() -> None:
    """The console script ``memgate``."""
    app()


__all__ = ["app", "package_version", "run"]
