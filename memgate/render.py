"""What the command line prints: tables and messages, with untrusted text shown as is.

Stored facts, queries, ids, file names, SQL results and error messages carry
text memgate does not control. None of it is ever read as rich markup (a
``[/x]`` in a fact crashed the tables, a ``[red]`` turned into a style), as an
emoji code, or sent to the terminal as a control sequence:

* the consoles are made with markup, emoji and highlighting off, so a plain
  string prints literally;
* untrusted text goes in as :class:`rich.text.Text` built by :func:`text`,
  which also shows control and bidirectional-override characters as escapes
  (``\\x1b``, ``\\u202e``) instead of emitting them;
* styles come only from code (``Text`` spans), never from strings;
* errors are one line (:func:`print_error`), with secrets in URLs masked.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from memgate.core.settings import mask_secrets

# C0/C1 controls except tab and newline, DEL, zero-width and bidirectional controls, BOM.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def make_console(*, stderr: bool = False) -> Console:
    """A console that prints strings literally (no markup, emoji codes or highlighting)."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False)


def clean(value: object) -> str:
    """``value`` as a string with terminal controls shown as escapes.

    >>> clean("a\\x1b[2Jb\\u202e")
    'a\\\\x1b[2Jb\\\\u202e'
    """
    s = str(value)

    def esc(m: re.Match[str]) -> str:
        c = ord(m.group())
        return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"

    return _UNSAFE.sub(esc, s)


def text(value: object, style: str = "") -> Text:
    """Untrusted ``value`` as a literal :class:`Text` (never parsed as markup)."""
    return Text(clean(value), style=style)


_LONG_WORD = 160


def _shorten(word: str) -> str:
    if len(word) <= _LONG_WORD:
        return word
    return f"{word[:100]}…{word[-20:]} ({len(word):,} characters)"


def one_line(value: object) -> str:
    """``value`` cleaned, on one line, secrets in URLs masked, very long words shortened.

    >>> one_line("cannot open /tmp/" + "a" * 300 + ":  File name too long").split("…")[1]
    'aaaaaaaaaaaaaaaaaaa: (306 characters) File name too long'
    >>> len(one_line("x" * 10_000)) < 200
    True
    """
    return " ".join(_shorten(w) for w in clean(mask_secrets(str(value))).split())


def os_error(exc: OSError) -> str:
    """An operating-system error as one sentence: the file and the reason."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


def print_error(console: Console, message: object, *, label: str = "error:") -> None:
    """``error: <message>`` on one line, however long, the message shown literally."""
    console.print(
        Text.assemble((label, "red"), " ", one_line(message)), soft_wrap=True, highlight=False
    )


def print_note(console: Console, message: object, style: str = "yellow") -> None:
    console.print(Text(one_line(message), style=style), soft_wrap=True)


def progress(console: Console, *, disable: bool = False) -> Progress:
    """A transient progress bar whose task descriptions are shown literally."""
    return Progress(
        TextColumn("{task.description}", markup=False, style="bold"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=disable,
    )


class BenchProgress:
    """One progress task, reset at every phase of the benchmark."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("bench starting", total=None)

    def start(self, label: str, total: int) -> None:
        label = f"bench {clean(label)}"
        self.progress.reset(self.task, total=total, completed=0, description=label)

    def advance(self, n: int = 1) -> None:
        self.progress.advance(self.task, n)


# ------------------------------------------------------------------------------ tables


def summary_table(summary: Any, title: str) -> Table:
    t = Table(title=text(title), show_lines=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    t.add_column("detail")

    def counts(c: Any) -> Text:
        return text(", ".join(f"{k}={v}" for k, v in c.most_common()))

    t.add_row("turns ingested", str(summary.turns), "")
    t.add_row("dropped at triage", str(sum(summary.dropped.values())), counts(summary.dropped))
    t.add_row("kept for extraction", str(summary.kept), "")
    t.add_row("candidate facts", str(summary.candidates), "")
    t.add_row(
        "sensitive spans masked in the journal",
        str(sum(summary.redaction_kinds.values())),
        counts(summary.redaction_kinds),
    )
    t.add_row("facts redacted (stored with placeholders)", str(summary.redacted), "")
    t.add_row("rejected", str(sum(summary.rejected.values())), counts(summary.rejected))
    for action in ("ADD", "SUPERSEDE", "DUPLICATE", "PENDING"):
        t.add_row(f"resolved {action}", str(summary.actions.get(action, 0)), "")
    t.add_row(
        "write amplification",
        f"{summary.write_amplification:.3f}",
        "new fact rows per turn",
    )
    return t


def search_table(hits: list[Any], title: str) -> Table:
    t = Table(title=text(title))
    for col in ("score", "fact", "status", "valid", "conf", "source"):
        t.add_column(col)
    for h in hits:
        f = h.fact
        valid = (
            f"{f.valid_from:%Y-%m-%d}..{f.valid_to:%Y-%m-%d}"
            if f.valid_to
            else f"{f.valid_from:%Y-%m-%d}.."
        )
        t.add_row(
            f"{h.score:.4f}",
            text(f.text),
            text(f.status.value),
            valid,
            f"{f.confidence:.2f}",
            text(",".join(f.source_turn_ids[:3])),
        )
    return t


def facts_table(rows: list[Any], title: str) -> Table:
    t = Table(title=text(title))
    for col in ("key", "value", "status", "seen", "conf", "why", "source"):
        t.add_column(col)
    for f in rows:
        why = f.rationale or f.extractor
        if f.superseded_by:
            why += f" (superseded by {f.superseded_by[:8]})"
        t.add_row(
            text(f.key.split("/", 2)[-1]),
            text(f.value),
            text(f.status.value),
            str(f.occurrences),
            f"{f.confidence:.2f}",
            text(f"{why}; {f.policy_version}"),
            text(",".join(f.source_turn_ids[:3])),
        )
    return t


def rows_table(title: str, cols: list[str], rows: list[tuple[Any, ...]]) -> Table:
    """SQL results: column names and cells are data, shown literally."""
    t = Table(title=text(title))
    for c in cols:
        t.add_column(text(c))
    for r in rows:
        t.add_row(*[text(v) for v in r])
    return t


def reports_table(reports: dict[str, tuple[str, str]]) -> Table:
    t = Table(title="audit reports")
    t.add_column("name")
    t.add_column("what")
    for name, (desc, _) in reports.items():
        t.add_row(text(name), text(desc))
    return t


def bench_table(result: Any) -> Table:
    ks, kk = result.ks, max(result.ks)
    variants = [result.gated[p] for p in result.policies] + [result.baseline]
    t = Table(title=text(f"memgate bench locomo ({result.extractor}, {result.embedder})"))
    t.add_column("figure")
    for v in variants:
        t.add_column(text(v.name), justify="right")
    t.add_row("write amplification", *[f"{v.clean.write_amplification:.3f}" for v in variants])
    for kx in ks:
        t.add_row(f"evidence recall@{kx}", *[f"{v.clean.recall(kx):.3f}" for v in variants])
    t.add_row("coverage", *[f"{v.clean.coverage:.3f}" for v in variants])
    t.add_row(
        f"answer-token recall@{kk} (no memory: 0)",
        *[f"{v.clean.answer_token_recall(kk):.3f}" for v in variants],
    )
    for r in result.ratios:
        t.add_row(
            f"recall@{kk} at {r}:1 pollution",
            *[f"{v.pollution[r].recall(kk):.3f}" for v in variants],
        )
        t.add_row(f"  rot cost at {r}:1", *[f"{v.rot_cost(r, kk):.3f}" for v in variants])
    return t


# -------------------------------------------------------------------------------- eval


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def eval_labelled_tables(rep: Any) -> list[Table]:
    t = Table(title=text(f"labelled turns ({rep.extractor}, {rep.policy}, {rep.embedder})"))
    for col in ("kind", "n", "keep", "stored", "tp", "fp", "fn", "tn", "precision", "recall", "F1"):
        t.add_column(col, justify="left" if col == "kind" else "right")

    def row(name: str, c: Any, style: str | None = None) -> None:
        t.add_row(
            text(name),
            str(c.n),
            str(c.tp + c.fn),
            str(c.tp + c.fp),
            str(c.tp),
            str(c.fp),
            str(c.fn),
            str(c.tn),
            _pct(c.precision),
            _pct(c.recall),
            _pct(c.f1),
            style=style,
        )

    row("overall", rep.overall, "bold")
    for name, c in sorted(rep.by_kind.items(), key=lambda kv: (-(kv[1].tp + kv[1].fn), kv[0])):
        row(name, c)
    lt = Table(title="by language and domain")
    for col in ("group", "n", "precision", "recall", "F1", "accuracy"):
        lt.add_column(col, justify="left" if col == "group" else "right")
    for prefix, table in (("lang", rep.by_lang), ("domain", rep.by_domain)):
        for name, c in sorted(table.items()):
            lt.add_row(
                text(f"{prefix}={name}"),
                str(c.n),
                _pct(c.precision),
                _pct(c.recall),
                _pct(c.f1),
                _pct(c.accuracy),
            )
    mt = Table(title="misclassified labelled turns")
    for col in ("id", "error", "kind", "lang", "content", "gate"):
        mt.add_column(col)
    for m in rep.false_negatives + rep.false_positives:
        gate = "; ".join(m.facts) if m.facts else (m.decisions[-1] if m.decisions else "")
        mt.add_row(
            text(m.id),
            "FN" if m.keep else "FP",
            text(m.kind),
            text(m.lang),
            text(m.content[:90]),
            text(gate[:90]),
        )
    return [t, lt, mt]


def eval_leak_table(rep: Any) -> Table:
    t = Table(title=text(f"leak check ({rep.extractor}, {rep.policy})"))
    for col in ("kind", "cases", "leaked", "where"):
        t.add_column(col, justify="right" if col in ("cases", "leaked") else "left")
    where: dict[str, list[str]] = {}
    for r in rep.leaked:
        where.setdefault(r.kind, []).append(f"{r.id} ({', '.join(r.where)})")
    for kind, stats in rep.by_kind.items():
        t.add_row(
            text(kind),
            str(stats["cases"]),
            str(stats["leaked"]),
            text("; ".join(where.get(kind, []))),
            style="red" if stats["leaked"] else None,
        )
    t.add_row("total", str(rep.secrets), str(rep.leaks), "", style="bold")
    masked = "; ".join(
        f"{b.id} ({b.lookalike_kind}: {b.lookalike!r}"
        + (f", masked as {','.join(b.journal_redactions)}" if b.journal_redactions else "")
        + (f", {','.join(b.fact_path_findings)}" if b.fact_path_findings else "")
        + ")"
        for b in rep.benign_masked
    )
    t.add_row(
        "benign look-alikes intact",
        str(rep.benign),
        str(rep.benign_intact),
        text(f"{_pct(rep.benign_share)}" + (f"; masked: {masked}" if masked else "")),
        style="bold",
    )
    if rep.erasure is not None:  # its own line: users forgotten, residues left
        t.add_row(*map(text, rep.erasure.row()), style="bold" if rep.erasure.ok else "red")
    return t


def eval_scenario_table(rep: Any) -> Table:
    t = Table(
        title=text(f"scenarios ({rep.extractor}, {rep.policy}): {rep.passed}/{rep.total} pass")
    )
    for col in ("scenario", "covers", "result", "first failing check"):
        t.add_column(col)
    for r in rep.results:
        t.add_row(
            text(r.id),
            text(",".join(r.covers)),
            Text("pass", style="green") if r.passed else Text("FAIL", style="red"),
            text(r.first_failure),
        )
    return t
