"""Global options, before the command or after it, and the session a command runs in.

``memgate --data-dir X search q -t a -u b`` and ``memgate search q -t a -u b
--data-dir X`` do the same. The top-level callback records the global options
it was given (:func:`record_global_options`); every command declares the same
options too (:func:`global_options` adds them to its signature, so typer parses
them after the command name), merges them over the top-level ones (a value
given after the command wins) and only then loads the settings and opens the
runtime (:func:`open_session`). A command that declares an option of the same
name itself (``bench locomo --policy``, repeatable) keeps its own.
"""

from __future__ import annotations

import functools
import inspect
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar, cast, get_type_hints

import typer

from memgate import render
from memgate.cli.args import (
    AuditBackend,
    EmbedderName,
    ExtractorName,
    OutputFormat,
    Policy,
    RetrievalBackend,
    check_text,
)
from memgate.cli.common import err
from memgate.core.errors import ConfigError
from memgate.core.settings import load_settings
from memgate.render import print_error, print_note
from memgate.runtime import Runtime

P = ParamSpec("P")
R = TypeVar("R")

PANEL = "Global options (before or after the command)"

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help="TOML settings file (or MEMGATE_CONFIG).", rich_help_panel=PANEL),
]
DataDirOpt = Annotated[
    str | None,  # a string: typer would read "" as Path("."), the current folder
    typer.Option(
        "--data-dir",
        help="Folder of every embedded store (or MEMGATE_DATA_DIR).",
        rich_help_panel=PANEL,
        callback=check_text,
    ),
]
PolicyOpt = Annotated[
    Policy | None, typer.Option("--policy", help="Write policy preset.", rich_help_panel=PANEL)
]
EmbedderOpt = Annotated[
    EmbedderName | None,
    typer.Option("--embedder", help="minilm (default) or hashing.", rich_help_panel=PANEL),
]
ExtractorOpt = Annotated[
    ExtractorName | None,
    typer.Option(
        "--extractor",
        help="hybrid (offline default), rules, statements or anthropic.",
        rich_help_panel=PANEL,
    ),
]
RetrievalOpt = Annotated[
    RetrievalBackend | None,
    typer.Option(
        "--retrieval-backend",
        help="Where facts are stored and searched (default: embedded).",
        rich_help_panel=PANEL,
    ),
]
AuditOpt = Annotated[
    AuditBackend | None,
    typer.Option(
        "--audit-backend", help="Where decisions are kept (default: chdb).", rich_help_panel=PANEL
    ),
]
VerboseOpt = Annotated[
    bool | None,
    typer.Option("--verbose", "-v", help="Log key=value lines.", rich_help_panel=PANEL),
]
JsonOpt = Annotated[
    bool | None,
    typer.Option("--json", help="Print JSON (the same as --format json).", rich_help_panel=PANEL),
]
FormatOpt = Annotated[
    OutputFormat | None,
    typer.Option(
        "--format", help="Print a table (default) or JSON.", case_sensitive=False,
        rich_help_panel=PANEL,
    ),
]  # fmt: skip

#: The global options that choose the settings, by parameter name.
SETTINGS_OPTIONS: dict[str, object] = {
    "config": ConfigOpt,
    "data_dir": DataDirOpt,
    "policy": PolicyOpt,
    "embedder": EmbedderOpt,
    "extractor": ExtractorOpt,
    "retrieval_backend": RetrievalOpt,
    "audit_backend": AuditOpt,
    "verbose": VerboseOpt,
}
#: The global options of the commands that print results.
OUTPUT_OPTIONS: dict[str, object] = {"as_json": JsonOpt, "output_format": FormatOpt}


T = TypeVar("T")


def _pick(values: dict[str, object], name: str, kind: type[T]) -> T | None:
    value = values.get(name)
    assert value is None or isinstance(value, kind), (name, value)
    return value


@dataclass(frozen=True)
class GlobalOptions:
    """The global options given at one place (None: not given there)."""

    config: Path | None = None
    data_dir: str | None = None
    policy: Policy | None = None
    embedder: EmbedderName | None = None
    extractor: ExtractorName | None = None
    retrieval_backend: RetrievalBackend | None = None
    audit_backend: AuditBackend | None = None
    verbose: bool | None = None
    output: OutputFormat | None = None

    @classmethod
    def parsed(cls, values: dict[str, object]) -> GlobalOptions:
        """From the parameters typer parsed; ``--json`` and ``--format`` become ``output``."""
        as_json, fmt = _pick(values, "as_json", bool), _pick(values, "output_format", OutputFormat)
        if as_json and fmt is OutputFormat.TABLE:
            raise typer.BadParameter("--json and --format table disagree: pass one of them")
        return cls(
            config=_pick(values, "config", Path),
            data_dir=_pick(values, "data_dir", str),
            policy=_pick(values, "policy", Policy),
            embedder=_pick(values, "embedder", EmbedderName),
            extractor=_pick(values, "extractor", ExtractorName),
            retrieval_backend=_pick(values, "retrieval_backend", RetrievalBackend),
            audit_backend=_pick(values, "audit_backend", AuditBackend),
            verbose=_pick(values, "verbose", bool),
            output=OutputFormat.JSON if as_json else fmt,
        )

    def over(self, base: GlobalOptions) -> GlobalOptions:
        """These options, with ``base``'s where these were not given."""
        merged = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, value in merged.items():
            if value is None:
                merged[name] = getattr(base, name)
        return GlobalOptions(**merged)


@dataclass
class Session:
    """What a command runs with: its merged global options and the runtime they opened."""

    options: GlobalOptions
    runtime: Runtime

    @property
    def json(self) -> bool:
        return self.options.output is OutputFormat.JSON


def session(ctx: typer.Context) -> Session:
    found = ctx.find_object(Session)
    assert found is not None, "a command without @global_options"
    return found


def _with_options(
    func: Callable[P, R],
    options: dict[str, object],
    use: Callable[[typer.Context, GlobalOptions], None],
) -> Callable[P, R]:
    """``func`` with ``options`` added to the signature typer reads; ``use`` gets their values."""
    sig = inspect.signature(func, eval_str=True)
    if "ctx" not in sig.parameters:
        raise TypeError(f"{func.__name__} needs a `ctx: typer.Context` parameter")
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=ann)
        for name, ann in options.items()
        if name not in sig.parameters  # the command's own option of that name wins
    ]

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        given = {p.name: kwargs.pop(p.name, None) for p in added}
        # typer passes its click context, of which typer.Context is a subclass
        ctx = cast(typer.Context, kwargs["ctx"])
        use(ctx, GlobalOptions.parsed(given))
        return func(*args, **kwargs)

    # what typer reads: inspect.signature (which stops at __signature__) and the type hints
    wrapper.__dict__["__signature__"] = sig.replace(parameters=[*sig.parameters.values(), *added])
    wrapper.__annotations__ = {
        **get_type_hints(func, include_extras=True),
        **{p.name: p.annotation for p in added},
    }
    return wrapper


def _record(ctx: typer.Context, options: GlobalOptions) -> None:
    ctx.obj = options


def record_global_options(func: Callable[P, R]) -> Callable[P, R]:
    """The top-level callback: takes every global option and keeps them for the command."""
    return _with_options(func, {**SETTINGS_OPTIONS, **OUTPUT_OPTIONS}, _record)


def _open(ctx: typer.Context, given: GlobalOptions) -> None:
    top = ctx.find_object(GlobalOptions) or GlobalOptions()
    ctx.obj = open_session(ctx, given.over(top))


def global_options(*, output: bool = False) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """A command that takes the global options after its name, and runs in a :class:`Session`.

    ``output``: the command prints results and takes ``--json`` and ``--format``.
    """

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        options = {**SETTINGS_OPTIONS, **(OUTPUT_OPTIONS if output else {})}
        return _with_options(func, options, _open)

    return decorate


def _value(choice: StrEnum | None) -> str | None:
    return None if choice is None else choice.value


def open_session(ctx: typer.Context, options: GlobalOptions) -> Session:
    """Logging, the settings (exit code 2 on a bad one), the umask and the runtime."""
    verbose = bool(options.verbose)
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(asctime)s level=%(levelname)s logger=%(name)s %(message)s",
        stream=sys.stderr,
    )
    if not verbose:  # client libraries' retry chatter: the error line says what failed
        for name in ("urllib3.connectionpool", "clickhouse_connect", "opensearch"):
            logging.getLogger(name).setLevel(logging.ERROR)
    try:
        settings = load_settings(
            options.config,
            data_dir=options.data_dir,
            policy=_value(options.policy),
            embedder=_value(options.embedder),
            extractor=_value(options.extractor),
            retrieval_backend=_value(options.retrieval_backend),
            audit_backend=_value(options.audit_backend),
        )
        if settings.data_dir.exists() and not settings.data_dir.is_dir():
            raise ConfigError(
                f"data dir {settings.data_dir} exists and is not a folder; "
                "pass --data-dir FOLDER or set MEMGATE_DATA_DIR"
            )
    except OSError as exc:
        print_error(err, f"data dir {render.os_error(exc)}; pass --data-dir FOLDER")
        raise typer.Exit(2) from None
    except ConfigError as exc:
        print_error(err, exc)
        raise typer.Exit(2) from None
    # Everything memgate creates (data dir, store files and folders) is private to the user.
    umask = os.umask(0o077)
    ctx.call_on_close(lambda: os.umask(umask))
    from memgate.core.embedding import limit_blas_threads
    from memgate.core.threads import set_switch_interval

    capped = limit_blas_threads(settings.blas_threads)
    if capped:
        logging.getLogger("memgate").info(
            "blas_threads=%s libraries=%s", settings.blas_threads, capped
        )
    set_switch_interval(settings.switch_interval_us)
    rt = Runtime(settings, warn=lambda msg: print_note(err, msg))
    ctx.call_on_close(rt.close)
    return Session(options, rt)
