"""Which of several patterns may match a text, read in one pass (issue 14).

Resolution asks, for each stored value and each reading of it, which of its 33 families'
word patterns match, one ``search`` after another. Each pattern has literals one of which
any match must contain (:func:`memgate.stages.regex_literals.required_literals`).
:class:`LiteralScan` finds every such literal a text holds in one pass of one prefix tree
(:func:`memgate.stages.word_trie.alternation`, read at each position by a lookahead), so a
pattern none of whose literals occurs is not run: the answers are the same, only fewer
patterns run.

>>> scan = LiteralScan([frozenset({"boss", "chef"}), frozenset({"cat", "dog"}), None])
>>> found = scan.found("my chef has a dog")
>>> sorted(found), [scan.may(i, found) for i in range(3)]
(['chef', 'dog'], [True, True, True])
>>> found = scan.found("my cats")
>>> [scan.may(i, found) for i in range(3)]
[False, True, True]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgate.stages.word_trie import alternation

__all__ = ["LiteralScan"]


class LiteralScan:
    """The literals of several patterns' literal sets (``None``: a pattern with none proved,
    which always runs) found in a text in one pass."""

    def __init__(self, literal_sets: Sequence[frozenset[str] | None]) -> None:
        self._sets = tuple(literal_sets)
        literals = {lit for s in self._sets if s for lit in s if lit}
        # at each position the longest literal starting there: a shorter one starting there
        # too is a prefix of it, added with it
        self._re = re.compile(f"(?=({alternation(literals)}))") if literals else None
        self._with_prefixes = {
            lit: frozenset(p for p in literals if lit.startswith(p)) for lit in literals
        }

    def found(self, text: str) -> frozenset[str]:
        """Every literal of the sets that occurs in ``text``."""
        if self._re is None:
            return frozenset()
        out: set[str] = set()
        for m in self._re.finditer(text):
            out |= self._with_prefixes[m.group(1)]
        return frozenset(out)

    def may(self, index: int, found: frozenset[str]) -> bool:
        """Whether the ``index``-th pattern may match the text whose :meth:`found` literals
        are ``found``: ``False`` only when none of its literals occurs in it."""
        lits = self._sets[index]
        return lits is None or not lits.isdisjoint(found)
