"""``memgate config``: the effective settings, secrets masked."""

from __future__ import annotations

import typer

from memgate.cli.common import print_json
from memgate.cli.options import global_options, session
from memgate.core.errors import ConfigError
from memgate.core.settings import Settings, default_key_dir

app = typer.Typer()


@app.command("config")
@global_options()
def show_config(ctx: typer.Context) -> None:
    """Print the effective settings (secrets masked) and where the HMAC key file is."""
    settings = session(ctx).runtime.settings
    print_json({**settings.describe(), "hmac_key_file": key_file_shown(settings)})


def key_file_shown(s: Settings) -> str | None:
    """The key file the settings use (None with ``hmac_key`` set); nothing is created."""
    from memgate.keys import key_file

    if s.hmac_key is not None:
        return None
    try:
        path = key_file(s, create=False)
        where = default_key_dir() / "<data dir id, made on first use>.key"
    except ConfigError as exc:
        return f"(unknown: {exc})"
    return str(path if path is not None else where)
