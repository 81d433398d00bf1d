"""``memgate config``: the effective settings, secrets masked."""

from __future__ import annotations

import typer

from memgate.cli.common import print_json
from memgate.cli.options import global_options, session

app = typer.Typer()


@app.command("config")
@global_options()
def show_config(ctx: typer.Context) -> None:
    """Print the effective settings (secrets masked)."""
    print_json(session(ctx).runtime.settings.describe())
