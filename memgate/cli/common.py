"""What the commands share: consoles, error lines, JSON output, the tenant and user options.

Text from data goes through :mod:`memgate.render`, which prints it as it is
(never as ``rich`` markup) with control characters escaped.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from memgate import render
from memgate.cli.args import check_id
from memgate.core.errors import MemgateError
from memgate.core.settings import Settings, prepare_data_dir
from memgate.inputs import ReadErrors
from memgate.render import print_error, print_note

if TYPE_CHECKING:
    from memgate.apikeys import KeyStore

console = render.make_console()
err = render.make_console(stderr=True)
log = logging.getLogger("memgate")

#: Options shared by the commands that read one user's data.
TenantOpt = Annotated[str, typer.Option("--tenant", "-t", help="Tenant id.", callback=check_id)]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id.", callback=check_id)]


@contextmanager
def errors() -> Iterator[None]:
    """A memgate or system error becomes one ``error:`` line and exit code 1."""
    try:
        yield
    except MemgateError as exc:
        print_error(err, exc)
        raise typer.Exit(1) from None
    except OSError as exc:  # a file the system refuses: name too long, a device, permissions
        print_error(err, render.os_error(exc))
        raise typer.Exit(1) from None


def print_json(obj: object) -> None:
    """``obj`` as JSON; characters a terminal would act on are written as ``\\uXXXX`` escapes.

    Control and format characters (C0, C1, bidirectional overrides, zero-width
    marks) and line/paragraph separators can only occur inside JSON strings here,
    where an escape means the same text to a JSON reader.
    """
    text = json.dumps(obj, indent=2, default=str, ensure_ascii=False)
    sys.stdout.write(json_safe(text) + "\n")


def json_safe(text: str) -> str:
    """JSON text with the characters a terminal would act on as ``\\uXXXX`` escapes."""
    return _UNSAFE_CHARS.sub(_json_escape, text)


_UNSAFE_CHARS = re.compile(
    "[\u0080-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def _json_escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    if c <= 0xFFFF:
        return f"\\u{c:04x}"
    c -= 0x10000
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def report_read_errors(errors: ReadErrors) -> None:
    """The lines of an input file that were rejected, then exit code 1 if there were any.

    At most :data:`memgate.inputs.MAX_KEPT_ERRORS` are printed one by one; the
    rest are counted.
    """
    for e in errors.errors:
        print_error(err, e)
    if errors:
        more = f" ({errors.unshown:,} more not shown)" if errors.unshown > 0 else ""
        print_note(
            err,
            f"{errors.count:,} line(s) rejected{more}; the other turns were ingested. "
            "Fix the lines above and ingest the file again (turn ids make it idempotent).",
        )
        raise typer.Exit(1)


def key_store(s: Settings) -> KeyStore:
    """The API key file of these settings (the data dir created private when it holds it)."""
    from memgate.apikeys import KeyStore

    if s.api_key_file is None:
        warning = prepare_data_dir(s.data_dir)
        if warning:
            print_note(err, f"warning: {warning}")
    return KeyStore(s.api_keys_path)
