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
    if getattr(summary, "fallbacks", None):
        t.add_row(
            "read by the offline extractor (fallback)",
            str(sum(summary.fallbacks.values())),
            counts(summary.fallbacks),
        )
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
    for h in hits:  # memgate.api.MemoryHit
        f = h.fact
        valid = (
            f"{f.valid_from:%Y-%m-%d}..{f.valid_to:%Y-%m-%d}"
            if f.valid_to
            else f"{f.valid_from:%Y-%m-%d}.."
        )
        t.add_row(
            f"{h.score.final:.4f}",
            text(f.text),
            text(f.status.value),
            valid,
            f"{f.confidence:.2f}",
            text(",".join(f.provenance.source_turn_ids[:3])),
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


def bench_table(result: Any, label: str = "") -> Table:
    ks, kk = result.ks, max(result.ks)
    variants = [result.gated[p] for p in result.policies] + [result.baseline]
    where = f"{label}: " if label else ""
    t = Table(title=text(f"memgate bench locomo, {where}{result.extractor}, {result.embedder}"))
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


_SPLIT_NAMES = {"dev": "development", "heldout": "held back"}


def bench_split_tables(bench: Any) -> list[Table]:
    """``memgate bench locomo``: development and held-back conversations side by side
    (the headline policy against the store-every-turn baseline), then issue 9's targets."""
    names = bench.names
    out: list[Table] = []
    if any(len(bench.results[n].policies) > 1 for n in names):
        out += [bench_table(bench.results[n], _SPLIT_NAMES[n]) for n in names]
    figs = {n: bench.figures(n) for n in names}
    first = bench.results[names[0]]
    kk = 10 if 10 in first.ks else max(first.ks)
    t = Table(
        title=text(
            f"LoCoMo by split: {figs[names[0]]['policy']} vs store-every-turn "
            f"({first.extractor}, {first.embedder})"
        )
    )
    t.add_column("figure")
    for n in names:
        t.add_column(_SPLIT_NAMES[n], justify="right")

    def row(label: str, key: str, fmt: str = "{:.3f}", style: str | None = None) -> None:
        cells = [figs[n].get(key) for n in names]
        t.add_row(text(label), *["–" if c is None else fmt.format(c) for c in cells], style=style)

    t.add_row("conversations", *[text(", ".join(figs[n]["conversations"])) for n in names])
    row("turns", "turns", "{}")
    row("questions", "questions", "{}")
    row("writes per turn", "writes_per_turn", style="bold")
    for kx in first.ks:
        row(f"recall@{kx}", f"recall@{kx}")
        row(f"  baseline recall@{kx}", f"baseline_recall@{kx}")
        row("  ratio to baseline", f"recall@{kx}_ratio", "{:.3f}x", "bold" if kx == kk else None)
    row(f"answer-token recall@{kk}", f"answer_token_recall@{kk}")
    row(f"  baseline answer-token recall@{kk}", f"baseline_answer_token_recall@{kk}")
    row("  ratio to baseline", f"answer_token_recall@{kk}_ratio", "{:.3f}x", "bold")
    row("coverage", "coverage")
    row("extraction calls per 1,000 turns", "extraction_calls_per_1k_turns", "{:.0f}")
    for r in first.ratios:
        row(f"rot cost at {r}:1 (recall@{kk} lost)", f"rot_cost_{r}x")
        row(f"  baseline rot cost at {r}:1", f"baseline_rot_cost_{r}x")
    t.add_row("elapsed (s)", *[f"{bench.results[n].elapsed_s:.0f}" for n in names], style="dim")
    out.append(t)
    tt = Table(
        title="issue 9 LoCoMo targets (for the held-back conversations): reported, not enforced"
    )
    tt.add_column("target")
    tt.add_column("threshold", justify="right")
    for n in names:
        tt.add_column(_SPLIT_NAMES[n], justify="right")
    targets = [bench.targets(n) for n in names]
    for row_targets in zip(*targets, strict=True):
        cells = [
            Text(f"{x['measured']} met", style="green")
            if x["met"]
            else Text(f"{x['measured']} MISSED {x['gap']}".rstrip(), style="red")
            for x in row_targets
        ]
        tt.add_row(text(row_targets[0]["name"]), text(row_targets[0]["threshold"]), *cells)
    out.append(tt)
    return out


# -------------------------------------------------------------------------------- eval


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:.3f}"


def _count(c: Any | None) -> str:
    """A :class:`memgate.evaluation.aggregate.Count` as ``ok/n (share)``; ``–`` when absent."""
    if c is None or not c.n:
        return "–"
    return f"{c.ok}/{c.n} ({_pct(c.share)})"


def _split_table(title: str, splits: list[str]) -> Table:
    t = Table(title=text(title))
    t.add_column("figure")
    for name in splits:
        t.add_column("development" if name == "dev" else "frozen test", justify="right")
    return t


def _side(t: Table, label: str, cells: list[str], style: str | None = None) -> None:
    t.add_row(text(label), *cells, style=style)


def _keys(*tables: dict[str, Any] | None) -> list[str]:
    return sorted({k for tb in tables if tb for k in tb})


def eval_labelled_split_table(run: Any) -> Table:
    """Labelled turns, development and frozen side by side: aggregates and per-class counts."""
    splits = run.splits
    sums = [getattr(run, s).labelled for s in splits]
    t = _split_table(f"labelled turns ({run.extractor}, {run.policy}, {run.embedder})", splits)
    _side(t, "write decision F1 (keep = positive)", [_pct(x.overall.f1) for x in sums], "bold")
    _side(t, "  precision", [_pct(x.overall.precision) for x in sums])
    _side(t, "  recall", [_pct(x.overall.recall) for x in sums])
    _side(t, "  turns (keep + drop)", [f"{x.overall.n}" for x in sums])
    recalls = [x.keep_recall_by_lang for x in sums]
    for lang in _keys(*recalls):
        _side(t, f"keep recall, lang={lang}", [_count(r.get(lang)) for r in recalls])
    _side(t, "value correct on stored keep turns", [_count(x.value) for x in sums], "bold")
    values = [x.value_by_lang for x in sums]
    for lang in _keys(*values):
        _side(t, f"  lang={lang}", [_count(v.get(lang)) for v in values])
    for lang in _keys(*(x.by_lang for x in sums)):
        _side(
            t,
            f"F1, lang={lang}",
            [_pct(x.by_lang[lang].f1) if lang in x.by_lang else "–" for x in sums],
        )
    for dom in _keys(*(x.by_domain for x in sums)):
        _side(
            t,
            f"F1, domain={dom}",
            [_pct(x.by_domain[dom].f1) if dom in x.by_domain else "–" for x in sums],
        )
    for kind in _keys(*(x.by_kind for x in sums)):
        cells = []
        for x in sums:
            c = x.by_kind.get(kind)
            keep, drop = (c.tp + c.fn, c.tn + c.fp) if c is not None else (0, 0)
            parts = [f"stored {c.tp}/{keep}"] if c is not None and keep else []
            parts += [f"dropped {c.tn}/{drop}"] if c is not None and drop else []
            cells.append("; ".join(parts) or "–")
        _side(t, f"kind={kind}", cells)
    _side(t, "stored, all facts pending", [str(x.pending_only) for x in sums])
    return t


def eval_leak_split_table(run: Any) -> Table:
    splits = run.splits
    sums = [getattr(run, s).leaks for s in splits]
    t = _split_table(f"leak check ({run.extractor}, {run.policy})", splits)
    _side(
        t,
        "secrets stored anywhere (leaked/cases)",
        [f"{x.leaks}/{x.secrets.n}" for x in sums],
        "bold",
    )
    for label, attr in (("kind", "by_kind"), ("lang", "by_lang")):
        tables = [getattr(x, attr) for x in sums]
        for k in _keys(*tables):
            cells = [f"{tb[k].ok}/{tb[k].n}" if k in tb else "–" for tb in tables]
            _side(t, f"  {label}={k}", cells)
    for store in _keys(*(x.by_store for x in sums)):
        _side(t, f"  found in {store}", [str(x.by_store.get(store, 0)) for x in sums])
    _side(t, "benign look-alikes intact", [_count(x.benign) for x in sums], "bold")
    for label, attr in (("kind", "benign_by_kind"), ("lang", "benign_by_lang")):
        tables = [getattr(x, attr) for x in sums]
        for k in _keys(*tables):
            _side(t, f"  {label}={k}", [_count(tb.get(k)) for tb in tables])
    erasure = [x.erasure for x in sums]
    _side(
        t,
        "erasure (users, residues)",
        [f"{e['users']}, {e['residues']}" if e else "–" for e in erasure],
        "bold" if all(e.get("ok", True) for e in erasure) else "red",
    )
    _side(
        t,
        "  strings searched (found before)",
        [f"{e['strings']} ({e['found_before']})" if e else "–" for e in erasure],
    )
    return t


def eval_scenario_split_table(run: Any) -> Table:
    splits = run.splits
    sums = [getattr(run, s).scenarios for s in splits]
    t = _split_table(f"scenarios ({run.extractor}, {run.policy})", splits)
    _side(t, "scenarios passed", [_count(x.passed) for x in sums], "bold")
    classes = [x.by_class for x in sums]
    for k in _keys(*classes):
        _side(t, f"  class={k}", [_count(c.get(k)) for c in classes])
        firsts = [x.first_failing.get(k, {}) for x in sums]
        if any(firsts):
            _side(t, "    first failing check", [
                ", ".join(f"{n}× {kind}" for kind, n in f.items()) or "–" for f in firsts
            ])
            whys = [x.first_failing_cause.get(k, {}) for x in sums]
            _side(t, "    its cause", [
                "; ".join(f"{n}× {why}" for why, n in f.items()) or "–" for f in whys
            ])
    if any(x.errors for x in sums):
        _side(t, "  crashed the gate", [str(x.errors) for x in sums], "red")
    return t


def eval_targets_table(run: Any) -> Table:
    """Issue 9's targets on each split: reported, never a failure of the command."""
    targets = run.issue_targets()
    t = Table(title="issue 9 targets (offline extractor, balanced): reported, not enforced")
    t.add_column("target")
    t.add_column("threshold", justify="right")
    for name in targets:
        t.add_column("development" if name == "dev" else "frozen test", justify="right")
    rows = list(zip(*targets.values(), strict=True))
    for row in rows:
        cells = [
            Text(f"{x.measured} met", style="green")
            if x.met
            else Text(f"{x.measured} MISSED {x.gap}".rstrip(), style="red")
            for x in row
        ]
        t.add_row(text(row[0].name), text(row[0].threshold), *cells)
    return t


def eval_dev_detail_tables(run: Any) -> list[Table]:
    """The development split's cases that missed: misclassified turns, wrong values,
    leaked secrets, masked look-alikes, failing scenarios (never shown for the frozen split)."""
    out: list[Table] = []
    lab = run.dev_reports.get("labelled")
    if lab is not None and (lab.false_negatives or lab.false_positives or lab.value_wrong):
        mt = Table(title="development: misclassified labelled turns")
        for col in ("id", "error", "kind", "lang", "content", "gate"):
            mt.add_column(col)
        for m, err in (
            *((m, "FN" if m.keep else "FP") for m in lab.false_negatives + lab.false_positives),
            *((m, "VALUE") for m in lab.value_wrong),
        ):
            gate = "; ".join(m.facts) if m.facts else (m.decisions[-1] if m.decisions else "")
            mt.add_row(
                text(m.id), err, text(m.kind), text(m.lang), text(m.content[:90]), text(gate[:90])
            )
        out.append(mt)
    lk = run.dev_reports.get("leaks")
    if lk is not None and (lk.leaked or lk.benign_masked or (lk.erasure and not lk.erasure.ok)):
        kt = Table(title="development: leaked secrets, masked look-alikes, erasure")
        for col in ("case", "kind", "what"):
            kt.add_column(col)
        for r in lk.leaked:
            kt.add_row(
                text(r.id), text(r.kind), text("leaked in " + ", ".join(r.where)), style="red"
            )
        for b in lk.benign_masked:
            how = [f"masked as {','.join(b.journal_redactions)}"] if b.journal_redactions else []
            how += b.fact_path_findings
            kt.add_row(
                text(b.id), text(b.lookalike_kind), text(f"{b.lookalike!r}: {'; '.join(how)}")
            )
        if lk.erasure is not None and not lk.erasure.ok:
            kt.add_row(*map(text, lk.erasure.row()[:1]), "", text(lk.erasure.row()[3]), style="red")
        out.append(kt)
    sc = run.dev_reports.get("scenarios")
    if sc is not None and sc.failed:
        st = Table(title=text(f"development: failing scenarios ({len(sc.failed)}/{sc.total})"))
        for col in ("scenario", "covers", "first failing check"):
            st.add_column(col)
        for r in sc.failed:
            st.add_row(text(r.id), text(",".join(r.covers)), text(r.first_failure))
        out.append(st)
    return out


def eval_tables(run: Any) -> list[Table]:
    """Everything ``memgate eval`` prints, in order (see :mod:`memgate.evaluation.run`)."""
    first = getattr(run, run.splits[0])
    out = eval_dev_detail_tables(run) if run.dev is not None else []
    if first.labelled is not None:
        out.append(eval_labelled_split_table(run))
    if first.leaks is not None:
        out.append(eval_leak_split_table(run))
    if first.scenarios is not None:
        out.append(eval_scenario_split_table(run))
    out.append(eval_targets_table(run))
    return out
