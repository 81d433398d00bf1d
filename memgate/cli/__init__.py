"""The ``memgate`` command line: one module per command group, put together here.

Each module holds a ``typer.Typer`` with its commands and their rendering
(typer's "one file per command"); this one adds them to :data:`app`, with the
global options (:mod:`memgate.cli.options`, accepted before the command and
after it) and ``--version``. The command that runs builds the settings once
and passes them down.
"""

# ruff: noqa: E402  (Ctrl-C is handled before the command modules are imported)

from __future__ import annotations

import os
import signal
import sys
import threading
from importlib.metadata import PackageNotFoundError, version
from types import FrameType
from typing import Annotated

#: What Ctrl-C prints when it stops a command outside a run that says more itself
#: (``memgate ingest`` reports the turns it saved).
INTERRUPTED = "interrupted by SIGINT: the command stopped before it finished; run it again"


def _stop_while_starting(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C while the command line is still being imported: nothing has started, no
    store is open; one line and exit 130, never an import traceback (attack19)."""
    sys.stderr.write(f"{INTERRUPTED}\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def _takes_sigint() -> bool:
    return (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )


_BEFORE_IMPORT = signal.signal(signal.SIGINT, _stop_while_starting) if _takes_sigint() else None

# the imports below take most of a start: Ctrl-C there is handled above
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


if _BEFORE_IMPORT is not None:  # imported: Ctrl-C raises KeyboardInterrupt again
    signal.signal(signal.SIGINT, _BEFORE_IMPORT)


def _interrupted(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C in a command: one line, then the usual KeyboardInterrupt (the stores close
    on the way out; typer turns it into exit 130, silently until now)."""
    sys.stderr.write(f"{INTERRUPTED}\n")
    sys.stderr.flush()
    raise KeyboardInterrupt


def run() -> None:
    """The console script ``memgate``."""
    if _takes_sigint():  # an ignored SIGINT (started in the background) stays ignored
        signal.signal(signal.SIGINT, _interrupted)
    app()


__all__ = ["app", "package_version", "run"]
