"""Leak check: after the gate has seen PII and credentials, is any raw value stored?

Each line of the corpus is one turn carrying a secret, or a benign look-alike::

    {"id": "leak-email-01", "kind": "email", "lang": "en",
     "secret": "ap@harbor-logistics.co.uk", "fragments": [],
     "turn": {...TurnEvent: "Send invoices to ap@harbor-logistics.co.uk from now on."...}}
    {"id": "benign-version-01", "kind": "benign", "lookalike_kind": "version",
     "lookalike": "v2.14.3", "turn": {...}}

``secret`` (and every string in ``fragments``, e.g. the password inside a
connection string) is a value that must never be stored anywhere; the turns
are memorable on purpose, so a gate that did not redact would store them.
``lookalike`` is a value that looks sensitive but is not (a version, an
order id, a card-like number failing Luhn, an IBAN failing mod-97...) and must
survive redaction.

After one fresh gate has ingested every turn, every store is searched for
every secret, as a substring (exact, then case-folded):

* ``retrieval.facts``: every fact of every status, all fields;
* ``retrieval.sqlite``: every row of every table of the SQLite file, FTS
  shadow tables included, read with plain SQL;
* ``files:<name>``: every byte of every file under the data dir, both
  stores (SQLite file, WAL and shared memory; chDB parts, active and
  replaced, their compressed blocks decoded, and mutation files), through
  :mod:`memgate.evaluation.bytescan`; a value found only once decoded is
  named ``files:<name> (decompressed)``;
* ``audit.<table>``: every column of every row of the journal, decisions
  and fact history, read back with SQL;
* ``kafka.dead_letters``: dead-letter messages passed in (when the gate runs
  on Kafka, the caller reads the topic and passes the payloads).

A case leaks when any of its values is found in any store. A value made of
ASCII digits only (a PIN, an alarm code) is not found where it occurs by
coincidence, as :func:`memgate.evaluation.bytescan.secret_in` defines it. In a
value read back with SQL: inside a maximal run of hex characters
``[0-9A-Fa-f]`` at least twice its length (a hex id, a digest, a long number),
or inside the fractional digits of a decimal (after ``<digit>.``: a timestamp's
microseconds, a float). In a file's bytes: only where the bytes around it spell
one of those very ids or decimals of the read-back
(:func:`~memgate.evaluation.bytescan.coincidences`), so bytes that no read-back
accounts for (a freed page, a value glued to a neighbouring column) are not
excused by their shape. The stores of one run hold about 1 % of all six-digit
strings in such places; an occurrence anywhere else counts, including one next
to a single other digit or letter (a length-prefix byte can be one), so a value
stored as a token of its text is still found. Other values are plain substrings. The erasure check
and the scenarios' ``no_secret`` check search with the same rule. A benign
look-alike is *intact* when it is verbatim in the journal's redacted text of
its turn (every turn is journaled, so every case is measured alike) and no
candidate fact of its turn had a finding at the redact stage.

Then an erasure (:mod:`memgate.evaluation.erasure`): some users whose turns
carry secrets are forgotten, and every store is searched again for anything
of theirs; any residue fails the check.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memgate.core.embedding import Embedder
from memgate.core.events import Ident, StoredFact, TurnEvent
from memgate.core.settings import Settings
from memgate.evaluation import erasure as erasure_check
from memgate.evaluation.bytescan import KnownIds, ScannedFile, coincidences, read_file, secret_in
from memgate.evaluation.common import (
    CorpusError,
    PipelineFactory,
    Workspace,
    embedder_name,
    read_jsonl,
    safe_ratio,
)
from memgate.sinks.audit import TABLES

__all__ = [
    "SECRET_KINDS",
    "BenignResult",
    "LeakCase",
    "LeakCaseResult",
    "LeakReport",
    "evaluate",
    "load",
    "scan_workspace",
]

LeakKind = Literal[
    "email",
    "phone",
    "card",
    "iban",
    "national_id",
    "api_key",
    "bearer_token",
    "jwt",
    "password",
    "connection_string",
    "private_key",
    "address",
    "benign",
]
SECRET_KINDS: tuple[str, ...] = tuple(k for k in get_args(LeakKind) if k != "benign")
MIN_NEEDLE = 6


class LeakCase(BaseModel):
    """One line of ``leaks.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Ident
    kind: LeakKind
    lang: str = Field(default="en", pattern=r"^[a-z]{2}$")
    secret: str | None = None
    fragments: list[str] = Field(default_factory=list)
    lookalike: str | None = None
    lookalike_kind: str | None = None
    note: str = ""
    turn: TurnEvent

    @model_validator(mode="after")
    def _consistent(self) -> LeakCase:
        content = self.turn.content
        if self.kind == "benign":
            if not self.lookalike or self.secret is not None or self.fragments:
                raise ValueError("a benign case has a lookalike and no secret or fragments")
            if self.lookalike not in content:
                raise ValueError("the lookalike must occur verbatim in turn.content")
            if not self.lookalike_kind:
                raise ValueError("a benign case names its lookalike_kind")
            return self
        if not self.secret or self.lookalike is not None:
            raise ValueError("a secret case has a secret and no lookalike")
        for needle in self.needles:
            if len(needle) < MIN_NEEDLE:
                raise ValueError(f"secret values must be at least {MIN_NEEDLE} characters")
            if needle not in content:
                raise ValueError("the secret and every fragment must occur verbatim in the turn")
        return self

    @property
    def needles(self) -> list[str]:
        """Every value that must never be stored."""
        return [self.secret, *self.fragments] if self.secret else []


def load(path: Path | Sequence[Path]) -> list[LeakCase]:
    """The cases of one corpus file, or of several read as one corpus (ids unique across them)."""
    cases: list[LeakCase] = []
    seen: dict[str, Path] = {}
    for p in [path] if isinstance(path, Path) else path:
        for c in read_jsonl(p, LeakCase):
            if c.id in seen:
                raise CorpusError(f"{p}: id {c.id} is also in {seen[c.id]}")
            seen[c.id] = p
            cases.append(c)
    return cases


@dataclass(frozen=True)
class LeakCaseResult:
    id: str
    kind: str
    leaked: bool
    where: list[str]
    """The stores holding a raw value (never the value itself)."""
    fact_path: str
    """What the redact stage did with the turn's candidates: none, clean, redacted, rejected."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "leaked": self.leaked,
            "where": self.where,
            "fact_path": self.fact_path,
        }


@dataclass(frozen=True)
class BenignResult:
    id: str
    lookalike_kind: str
    lookalike: str
    intact: bool
    in_journal: bool
    fact_path_findings: list[str]
    """Redact-stage decisions with a finding on this turn's candidates."""
    journal_redactions: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "lookalike_kind": self.lookalike_kind,
            "lookalike": self.lookalike,
            "intact": self.intact,
            "in_journal": self.in_journal,
            "fact_path_findings": self.fact_path_findings,
            "journal_redactions": self.journal_redactions,
        }


@dataclass
class LeakReport:
    path: str
    policy: str
    extractor: str
    embedder: str
    secrets: int = 0
    leaks: int = 0
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    """Secret kind -> ``{"cases": n, "leaked": n}``."""
    by_lang: dict[str, dict[str, int]] = field(default_factory=dict)
    """Language -> ``{"cases": n, "leaked": n}`` (secret cases)."""
    by_store: dict[str, int] = field(default_factory=dict)
    """Store (files grouped by their top folder) -> secret cases found in it."""
    leaked: list[LeakCaseResult] = field(default_factory=list)
    fact_path: dict[str, int] = field(default_factory=dict)
    """Secret cases by what the redact stage did (``none``: no candidate reached it)."""
    benign: int = 0
    benign_intact: int = 0
    benign_masked: list[BenignResult] = field(default_factory=list)
    benign_by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    """Look-alike kind -> ``{"cases": n, "intact": n}``."""
    benign_by_lang: dict[str, dict[str, int]] = field(default_factory=dict)
    """Language -> ``{"cases": n, "intact": n}`` (benign cases)."""
    stores_scanned: list[str] = field(default_factory=list)
    undecoded: list[str] = field(default_factory=list)
    """Files of compressed blocks the scanner could not decode (a blind spot)."""
    erasure: erasure_check.ErasureResult | None = None
    """The erasure check run after the leak check (see the module docstring)."""
    run: dict[str, object] = field(default_factory=dict)

    @property
    def benign_share(self) -> float | None:
        return safe_ratio(self.benign_intact, self.benign)

    def as_dict(self) -> dict[str, Any]:
        share = self.benign_share
        return {
            "path": self.path,
            "policy": self.policy,
            "extractor": self.extractor,
            "embedder": self.embedder,
            "secrets": self.secrets,
            "leaks": self.leaks,
            "by_kind": self.by_kind,
            "by_lang": self.by_lang,
            "by_store": self.by_store,
            "leaked": [r.as_dict() for r in self.leaked],
            "fact_path": self.fact_path,
            "benign": self.benign,
            "benign_intact": self.benign_intact,
            "benign_share": None if share is None else round(share, 4),
            "benign_masked": [b.as_dict() for b in self.benign_masked],
            "benign_by_kind": self.benign_by_kind,
            "benign_by_lang": self.benign_by_lang,
            "stores_scanned": self.stores_scanned,
            "undecoded": self.undecoded,
            "erasure": None if self.erasure is None else self.erasure.as_dict(),
            "run": self.run,
        }


# ------------------------------------------------------------------ scanning


def _flatten(value: object) -> Iterator[str]:
    if value is None:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, bytes | bytearray | memoryview):
        yield bytes(value).decode("utf-8", errors="ignore")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _flatten(k)
            yield from _flatten(v)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _flatten(v)
    else:
        yield str(value)


@dataclass
class Haystacks:
    """Texts read back from every store, and every file's bytes, by store name."""

    texts: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, ScannedFile] = field(default_factory=dict)
    """``files:<relative path>`` -> the file read raw and, for ClickHouse blocks, decoded."""

    _ids: KnownIds | None = field(default=None, repr=False, compare=False)

    def add(self, store: str, values: Iterable[object]) -> None:
        bucket = self.texts.setdefault(store, [])
        for v in values:
            bucket.extend(s for s in _flatten(v) if s)
        self._ids = None

    def known_ids(self) -> KnownIds:
        """The hex ids and digests of every text read back (:class:`KnownIds`)."""
        if self._ids is None:
            self._ids = KnownIds.of(t for texts in self.texts.values() for t in texts)
        return self._ids

    def find(self, needle: str) -> list[str]:
        """The stores in which ``needle`` occurs (texts: exact or case-folded; files: exact).

        Matched with :func:`~memgate.evaluation.bytescan.secret_in`: a needle of
        digits only is not found in a text where it is part of a long hex run or a
        decimal's fractional digits, nor in a file where the bytes around it spell
        such an id or decimal of the texts (see the module docstring)."""
        folded = needle.casefold()
        where = [
            store
            for store, texts in self.texts.items()
            if any(secret_in(t, needle) or secret_in(t.casefold(), folded) for t in texts)
        ]
        encoded = needle.encode("utf-8")
        digits = needle.isascii() and needle.isdigit()
        covers = {
            c.encode("utf-8")
            for texts in (self.texts.values() if digits else ())
            for t in texts
            for c in coincidences(t, needle)
        }
        ids = self.known_ids() if digits else None
        for name, f in self.files.items():
            how = f.find_secret(encoded, covers, ids)
            if how is not None:
                where.append(name if how == "raw" else f"{name} ({how})")
        return where

    @property
    def undecoded(self) -> list[str]:
        """Files of ClickHouse blocks whose method the scanner cannot decompress."""
        return [name for name, f in self.files.items() if f.undecoded_reason is not None]

    @property
    def stores(self) -> list[str]:
        """Store names, files grouped by their top folder or file."""
        files: dict[str, int] = {}
        for name in self.files:
            top = name.split("/", 1)[0]
            files[top] = files.get(top, 0) + 1
        grouped = [f"{top} ({n} file{'s' if n > 1 else ''})" for top, n in files.items()]
        return sorted({*self.texts, *grouped})


def _sqlite_rows(path: Path) -> Iterator[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            yield from conn.execute(f"SELECT * FROM {quoted}")
    finally:
        conn.close()


#: A fact's vectors: numbers computed from its text, not text it keeps. Their decimal
#: digits are not searched (a six-digit PIN is found in 384 floats' digits by chance);
#: the bytes the store writes them as are, with every file under the data dir.
VECTOR_FIELDS: frozenset[str] = frozenset({"embedding", "search_embedding"})


def fact_texts(f: StoredFact) -> list[str]:
    """Every field of a stored fact as text, its vectors left out (:data:`VECTOR_FIELDS`)."""
    return [
        f.model_dump_json(exclude=set(VECTOR_FIELDS)), f.subject, f.predicate, f.value,
        f.text, f.rationale, f.key,
    ]


def scan_workspace(ws: Workspace, dead_letters: Sequence[str] = ()) -> Haystacks:
    """Read back everything the stores of ``ws`` hold (see the module docstring)."""
    hay = Haystacks()
    facts = ws.facts()
    hay.texts["retrieval.facts"] = []
    for f in facts:
        hay.add("retrieval.facts", fact_texts(f))
    hay.add("retrieval.sqlite", _sqlite_rows(ws.settings.retrieval_path))
    for table in TABLES:
        _, rows = ws.audit_store.query(f"SELECT * FROM `{table.name}`")
        hay.add(f"audit.{table.name}", rows)
    if dead_letters:
        hay.add("kafka.dead_letters", dead_letters)
    for p in ws.files():
        try:
            hay.files[f"files:{p.relative_to(ws.data_dir)}"] = read_file(p)
        except OSError:  # a file removed while reading (chDB merges): nothing to scan
            continue
    return hay


# ---------------------------------------------------------------- evaluation


def evaluate(
    path: Path | Sequence[Path],
    settings: Settings,
    embedder: Embedder,
    *,
    pipeline_factory: PipelineFactory | None = None,
    dead_letters: Sequence[str] = (),
) -> LeakReport:
    """Ingest every case into a fresh gate, search every store for every secret, then
    forget some users and search again for anything of theirs."""
    cases = load(path)
    with Workspace(settings, embedder, pipeline_factory) as ws:
        baseline = erasure_check.baseline(ws)
        summary = ws.ingest(c.turn for c in cases)
        decisions = ws.decisions_by_turn()
        _, journal_rows = ws.audit_store.query(
            "SELECT tenant_id, turn_id, redacted_text, redaction_counts FROM journal"
        )
        hay = scan_workspace(ws, dead_letters)
        extractor = ws.pipeline.extract.extractor
        extractor_id = f"{extractor.name}-{extractor.version}"
        erased = erasure_check.check(
            ws,
            [c.turn for c in cases],
            {(c.turn.tenant_id, c.turn.turn_id): c.needles for c in cases if c.needles},
            baseline,
            scan_workspace,
        )

    journal = {(str(t), str(i)): (str(x), dict(c or {})) for t, i, x, c in journal_rows}
    report = LeakReport(
        path=str(path) if isinstance(path, Path) else ", ".join(map(str, path)),
        policy=settings.policy,
        extractor=extractor_id,
        embedder=embedder_name(embedder),
        stores_scanned=hay.stores,
        undecoded=hay.undecoded,
        erasure=erased,
        run=summary.as_dict(),
    )
    fact_path: Counter[str] = Counter()
    for case in cases:
        key = (case.turn.tenant_id, case.turn.turn_id)
        redact = [(v, r) for s, v, r in decisions.get(key, []) if s == "redact"]
        if case.kind == "benign":
            assert case.lookalike is not None and case.lookalike_kind is not None
            text, counts = journal.get(key, ("", {}))
            in_journal = case.lookalike in text
            findings = [f"{v}:{r}" for v, r in redact if v != "clean"]
            intact = in_journal and not findings
            report.benign += 1
            report.benign_intact += intact
            for table, name in (
                (report.benign_by_kind, case.lookalike_kind),
                (report.benign_by_lang, case.lang),
            ):
                row = table.setdefault(name, {"cases": 0, "intact": 0})
                row["cases"] += 1
                row["intact"] += intact
            if not intact:
                report.benign_masked.append(
                    BenignResult(
                        id=case.id,
                        lookalike_kind=case.lookalike_kind,
                        lookalike=case.lookalike,
                        intact=intact,
                        in_journal=in_journal,
                        fact_path_findings=findings,
                        journal_redactions={str(k): int(v) for k, v in counts.items()},
                    )
                )
            continue
        verdicts = {v for v, _ in redact}
        path_kind = next(
            (v for v in ("rejected", "redacted", "clean") if v in verdicts),
            "none",
        )
        fact_path[path_kind] += 1
        where = sorted({store for needle in case.needles for store in hay.find(needle)})
        leaked = bool(where)
        report.secrets += 1
        report.leaks += leaked
        for table, name in ((report.by_kind, case.kind), (report.by_lang, case.lang)):
            stats = table.setdefault(name, {"cases": 0, "leaked": 0})
            stats["cases"] += 1
            stats["leaked"] += leaked
        for store in sorted({_store_group(w) for w in where}):
            report.by_store[store] = report.by_store.get(store, 0) + 1
        if leaked:
            report.leaked.append(
                LeakCaseResult(
                    id=case.id, kind=case.kind, leaked=True, where=where, fact_path=path_kind
                )
            )
    report.fact_path = dict(fact_path)
    report.by_kind = dict(sorted(report.by_kind.items()))
    report.by_lang = dict(sorted(report.by_lang.items()))
    report.by_store = dict(sorted(report.by_store.items()))
    report.benign_by_kind = dict(sorted(report.benign_by_kind.items()))
    report.benign_by_lang = dict(sorted(report.benign_by_lang.items()))
    return report


def _store_group(where: str) -> str:
    """``files:retrieval.sqlite3-wal (decompressed)`` -> ``files:retrieval.sqlite3-wal``;
    ``files:audit/store/...`` -> ``files:audit``; store names unchanged."""
    name = where.split(" (", 1)[0]
    if name.startswith("files:"):
        return "files:" + name.removeprefix("files:").split("/", 1)[0]
    return name
