"""The predicate vocabulary shared by the extractors (data: ``memgate/data/predicates.json``).

The rule extractor emits only these predicates; the Claude extractor is told them in
its prompt and every predicate it answers is checked here before it becomes part of
a key. A qualified predicate is a family, ``:`` and a snake_case slot
(``uses_tool:editor``, ``prefers:answer_style``).

>>> valid_predicate("uses_tool:editor"), valid_predicate("a/b/../../B/b")
(True, False)
>>> is_multi_valued("likes"), is_multi_valued("works_at"), is_multi_valued("prefers:other")
(True, False, True)
"""

from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any, Final

__all__ = [
    "MULTI_VALUED_PREDICATES",
    "PREDICATES",
    "QUALIFIED_FAMILIES",
    "is_multi_valued",
    "predicate_pattern",
    "valid_predicate",
]


def _load() -> dict[str, Any]:
    raw = (resources.files("memgate") / "data" / "predicates.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(raw)
    return data


_DATA: Final = _load()
#: Bare predicates (no slot).
PREDICATES: Final[frozenset[str]] = frozenset(_DATA["single_valued"]) | frozenset(
    _DATA["multi_valued"]
)
#: Families that take a ``:<slot>``.
QUALIFIED_FAMILIES: Final[frozenset[str]] = frozenset(_DATA["qualified"])
MULTI_VALUED_PREDICATES: Final[frozenset[str]] = frozenset(_DATA["multi_valued"]) | frozenset(
    _DATA["qualified_multi_valued"]
)
_SLOT: Final[str] = _DATA["slot_pattern"]


def predicate_pattern() -> str:
    """A regular expression (JSON-schema dialect too) that a valid predicate matches in full."""
    bare = "|".join(sorted(PREDICATES))
    families = "|".join(sorted(QUALIFIED_FAMILIES))
    return f"^(?:{bare}|(?:{families}):{_SLOT})$"


_PREDICATE_RE: Final = re.compile(predicate_pattern())


def valid_predicate(predicate: str) -> bool:
    return _PREDICATE_RE.fullmatch(predicate) is not None


def is_multi_valued(predicate: str) -> bool:
    return predicate in MULTI_VALUED_PREDICATES
