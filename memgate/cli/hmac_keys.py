"""``memgate hmac-keys``: the key files made for data dirs, and removing those left behind.

(``memgate keys`` is the HTTP service's tenant API keys.) The states are
:mod:`memgate.key_folder`'s.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memgate import render
from memgate.cli.common import console, err, errors, print_json
from memgate.cli.options import global_options, session
from memgate.render import print_error, print_note

app = typer.Typer(
    help="The HMAC key files made for data dirs (in ${XDG_CONFIG_HOME:-~/.config}/memgate/keys): "
    "list them with their data dirs, remove those whose data dir is gone.",
    no_args_is_help=True,
)

_CAVEAT = (
    "a data dir moved and not opened since, or on a drive not mounted now, is not found where "
    "its key file's record says: open it once with any memgate command before pruning"
)


def _files(n: int) -> str:
    return f"{n} key file" if n == 1 else f"{n} key files"


@app.command("list")
@global_options(output=True)
def list_key_files(ctx: typer.Context) -> None:
    """Each key file, its data dirs and whether they still hold it (never the key)."""
    from memgate.key_folder import GONE, RECORD_ONLY, UNKNOWN, key_files, key_folder

    sess = session(ctx)
    with errors():
        folder = key_folder()
        entries = key_files(folder)
    if sess.json:
        print_json([e.public() for e in entries])
        return
    if not entries:
        print_note(err, f"no key files in {folder}")
        return
    for e in entries:
        places = ", ".join(f"{p} ({h})" for p, h in e.data_dirs) or (
            "no record of its data dir (made before memgate kept one)"
        )
        console.print(render.text(f"{e.ident}  {e.state}  {places}"), soft_wrap=True)
    states = [e.state for e in entries]
    counts = {s: states.count(s) for s in dict.fromkeys(states)}
    summary = ", ".join(f"{n} {s}" for s, n in counts.items())
    hint = ""
    if counts.get(GONE):
        hint = f"; memgate hmac-keys prune shows what it would remove ({_CAVEAT})"
    elif counts.get(RECORD_ONLY):
        hint = "; memgate hmac-keys prune --yes removes the records whose key file is gone"
    if counts.get(UNKNOWN):
        hint += "; unknown ones are never removed"
    keyed = sum(e.state != RECORD_ONLY for e in entries)
    print_note(err, f"{_files(keyed)} in {folder}: {summary}{hint}", style="")


@app.command("prune")
@global_options(output=True)
def prune_key_files(
    ctx: typer.Context,
    yes: Annotated[
        bool, typer.Option("--yes", help="Remove them (without it: only say what would go).")
    ] = False,
) -> None:
    """Remove the key files whose data dir is gone (with --yes; else a dry run).

    Gone: every place the data dir was opened from is missing or holds another data dir.
    Records whose key file was removed by hand go too (they hold no secret).
    A removed key cannot be made again: the digests of a data dir it keyed are then
    unreadable. Key files with no record of their data dir are never removed.
    """
    from memgate.key_folder import GONE, RECORD_ONLY, key_files, key_folder, prune

    sess = session(ctx)
    with errors():
        folder = key_folder()
        gone = [e for e in key_files(folder) if e.state in (GONE, RECORD_ONLY)]
        removed, failed = prune(gone) if yes else (gone, [])
    if sess.json:
        rows = [{**e.public(), "removed": yes} for e in removed]
        print_json({"dry_run": not yes, "key_files": rows, "errors": failed})
    else:
        verb = "removed" if yes else "would remove"
        for e in removed:
            places = ", ".join(f"{p} ({h})" for p, h in e.data_dirs)
            if e.state == RECORD_ONLY:
                what = f"{e.record}, a record whose key file is gone"
            else:
                what = f"{e.path}"
            console.print(render.text(f"{verb} {what}  data dir: {places}"), soft_wrap=True)
    for line in failed:
        print_error(err, line)
    if not gone:
        print_note(err, f"no key file in {folder} whose data dir is gone")
    elif not yes:
        print_note(
            err,
            f"dry run: nothing removed; {_files(len(gone))} would go. Check the list "
            f"({_CAVEAT}), then run: memgate hmac-keys prune --yes",
        )
    else:
        print_note(err, f"{_files(len(removed))} removed from {folder}", style="")
    if failed:
        raise typer.Exit(1)
