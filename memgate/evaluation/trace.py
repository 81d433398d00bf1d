"""Where a fact the scenario expected went: the gate's decisions, read from the audit store.

When a ``fact_status`` check finds no fact at all, the harness cannot tell from the store
alone whether the turn was dropped by triage, kept with nothing extracted, or stored and
then erased by a deletion request or a retraction. The audit store knows: every stage
records its decision per turn (:class:`memgate.core.events.DecisionRecord`). This module
reads those decisions and says, in their category words only (a stage, a verdict, a
reason: never a turn's text), what became of the check's turn, or of the user's turns when
the check names none. ``tools/eval_causes.py`` counts failing checks by this trace, so it
may be printed for a held-out file too.

>>> path_words([("triage", "drop", "moment")])
'triage drop (moment)'
>>> path_words([("triage", "keep", "memory_signal"), ("extract", "facts", "extracted"),
...             ("dedupe", "ADD", "new_key")])
'kept, dedupe ADD (new_key)'
>>> path_words([("triage", "keep", "x"), ("extract", "empty", "no_facts")])
'kept, extract empty (no_facts)'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memgate.core.stores import AuditStore

if TYPE_CHECKING:
    from memgate.evaluation.scenarios import CheckResult

__all__ = ["cause", "path_words", "turn_path", "user_erasures", "user_summary"]

#: the dedupe reasons of a deletion request or a retraction (resolve_forget)
_FORGETTING = ("deletion", "retract", "erase", "forget", "stopped")

_SQL_TURN = (
    "SELECT stage, verdict, reason FROM decisions WHERE tenant_id = {t:String} "
    "AND user_id = {u:String} AND turn_id = {turn:String} ORDER BY decided_at"
)
_SQL_USER = (
    "SELECT reason, count() FROM decisions WHERE tenant_id = {t:String} "
    "AND user_id = {u:String} AND stage = 'dedupe' GROUP BY reason"
)
_SQL_TRIAGE = (
    "SELECT verdict, count() FROM decisions WHERE tenant_id = {t:String} "
    "AND user_id = {u:String} AND stage = 'triage' GROUP BY verdict"
)


def path_words(decisions: Sequence[tuple[str, str, str]]) -> str:
    """One turn's way through the gate in category words: triage's drop with its reason,
    or 'kept' and the extraction's and resolution's outcomes that are not the plain
    course (an extraction with facts is the plain course)."""
    by_stage: dict[str, list[tuple[str, str]]] = {}
    for stage, verdict, reason in decisions:
        by_stage.setdefault(stage, []).append((verdict, reason))
    if not by_stage:
        return "no decision recorded"
    drops = [r for v, r in by_stage.get("triage", []) if v == "drop"]
    if drops:
        return f"triage drop ({drops[0]})"
    parts = ["kept"]
    for verdict, reason in by_stage.get("extract", []):
        if verdict != "facts":
            parts.append(f"extract {verdict} ({reason})")
    seen = Counter(f"dedupe {v} ({r})" for v, r in by_stage.get("dedupe", []))
    parts += [w if n == 1 else f"{w} x{n}" for w, n in sorted(seen.items())]
    return ", ".join(parts)


def turn_path(audit: AuditStore, tenant: str, user: str, turn_id: str) -> str:
    """:func:`path_words` of one turn of the tenant's user."""
    _, rows = audit.query(_SQL_TURN, {"t": tenant, "u": user, "turn": turn_id})
    return path_words([(str(s), str(v), str(r)) for s, v, r in rows])


def user_erasures(audit: AuditStore, tenant: str, user: str) -> int:
    """How many resolutions of the user's turns were a deletion request or a retraction."""
    _, rows = audit.query(_SQL_USER, {"t": tenant, "u": user})
    return sum(int(n) for r, n in rows if any(w in str(r) for w in _FORGETTING))


def user_summary(audit: AuditStore, tenant: str, user: str) -> str:
    """The user's turns in counts: deletions or retractions resolved, references that
    found nothing to act on, turns triage dropped."""
    n = user_erasures(audit, tenant, user)
    _, rows = audit.query(_SQL_USER, {"t": tenant, "u": user})
    unfound = sum(int(c) for r, c in rows if str(r) == "nothing_referenced")
    _, verdicts = audit.query(_SQL_TRIAGE, {"t": tenant, "u": user})
    by_verdict = {str(v): int(c) for v, c in verdicts}
    parts = [f"{n} deletion(s) or retraction(s) resolved" if n else "no deletion or retraction"]
    if unfound:
        parts.append(f"{unfound} reference(s) found nothing")
    parts.append(f"triage dropped {by_verdict.get('drop', 0)} of {sum(by_verdict.values())}")
    return "; ".join(parts)


#: fact_status's message "found: 'text' [status, xN]; ...": the statuses only
_STATUS = re.compile(r"\[(active|pending|superseded), x\d+\]")


def cause(check: CheckResult) -> str:
    """The cause class of one failing check, from its label and the harness's message."""
    label, msg = check.label or check.type, check.message
    statuses = sorted(set(_STATUS.findall(msg)))
    if label.startswith("fact_status:"):
        if label == "fact_status:absent":
            return "still stored (" + "/".join(statuses) + ")" if statuses else "still stored"
        if " has occurrences " in msg:
            return "found, too few occurrences (a restatement not folded in)"
        if "found: none" in msg:
            trace = msg.partition("; trace: ")[2].strip()
            return "no matching fact at all" + (f" ({trace})" if trace else "")
        return "found only as " + "/".join(statuses)
    if label in ("active_count", "fact_count"):
        m = re.match(r"(\d+) .* expected (\d+)", msg)
        if m is None:
            return "unreadable"
        got, want = int(m.group(1)), int(m.group(2))
        more = got > want
        trace = msg.partition("; trace: ")[2].strip()
        words = f"{'more' if more else 'fewer'} than expected ({'+' if more else ''}{got - want})"
        return words + (f" ({trace})" if trace else "")
    if label.startswith("search_top"):
        if "top hit lacks" in msg or "top hit is not from" in msg:
            head, _, trace = msg.partition("; trace: ")
            if head.endswith("no hits"):
                return "top hit wrong: nothing found" + (f" ({trace.strip()})" if trace else "")
            return "top hit wrong" + (f" ({trace.strip()})" if trace else "")
        if "a hit contains" in msg or "a hit comes from" in msg:
            trace = msg.partition("; trace: ")[2].strip()
            return "a stale or foreign hit served" + (f" ({trace})" if trace else "")
        return "other"
    if label == "no_results":
        return "results where none expected"
    return "other"
