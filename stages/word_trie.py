"""A word list as one regex alternation with its common prefixes factored (issue 14).

A word class is matched as ``(?:longest|...|shortest)``: Python's ``re`` tries every
alternative at every position of the text, so a class of 250 words costs 250 tries a
position. :func:`alternation` writes the same list as a prefix tree (``ab(?:c|d)``), so a
position costs one try per letter that some word continues with.

The tree matches exactly the strings the list matches, and at a given position it finds
the same one: every node tries the words that go on before the word that ends there, and
two branches of a node never start with the same letter, so the first whole match found
is the longest word that matches there, as with the list sorted longest first. Whatever
follows the alternation (a lookahead, a boundary) makes it fall back to the next shorter
word in both forms alike.

>>> alternation(["work", "worker", "walk"])
'w(?:alk|ork(?:er)?)'
>>> import re
>>> re.match(alternation(["a", "ab", "abc"]), "abcd").group()
'abc'
>>> alternation([])
'(?!x)x'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["alternation", "bounded_words"]

_END = ""  # the key of a node's "a word ends here"

#: a node of the prefix tree: its children by letter, :data:`_END` where a word ends
_Node = dict[str, "_Node"]


def alternation(words: Iterable[str]) -> str:
    """The regex source (no group of its own at the top unless needed) matching exactly the
    literal strings ``words``, the longest one first at a position; ``(?!x)x`` (matches
    nothing) for no word. Every word is escaped: none is read as a pattern."""
    root = _tree(words)
    if not root:
        return r"(?!x)x"
    if set(root) == {_END}:
        return ""  # the empty word alone
    return _source(root)


def _source(node: _Node) -> str:
    ends = _END in node
    branches = [re.escape(ch) + _source(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if not ends:
        return body
    # the words that go on are tried first, then the word that ends here
    if len(branches) == 1 and _single(body):
        return body + "?"
    return "(?:" + "|".join(branches) + ")?"


def _single(body: str) -> bool:
    """Whether ``body`` is one escaped character (``?`` may follow it as is)."""
    return len(body) == 1 or (len(body) == 2 and body[0] == "\\")


def bounded_words(latin: Iterable[str], cjk: Iterable[str], before: str, after: str) -> str:
    """The regex source of ``(?<!before)(?:latin)(?!after)|(?:cjk)`` (each list longest
    first, ``before`` one character class), written as one prefix tree whose branches start
    with their first letter: ``re`` then skips at once every position no word starts at,
    and reads the lookbehind only where a first letter matched (``c(?<!Xc)``: the letter
    before ``c`` is no ``X``). At a position, a Latin word is tried before a Chinese one
    with the same first letter, as the two alternations are tried in that order.

    >>> import re
    >>> p = re.compile(bounded_words(["bei", "beim"], ["北京"], r"[\\w']", r"[\\w]"))
    >>> [m.group() for m in p.finditer("beim xbei bei 在北京")]
    ['beim', 'bei', '北京']
    """
    tries = (_tree(latin), _tree(cjk))
    if _END in tries[0] or _END in tries[1]:
        raise ValueError("a word list holds an empty word: it would match everywhere")
    branches = []
    for ch in sorted(set(tries[0]) | set(tries[1])):
        esc = re.escape(ch)
        if ch in tries[0]:
            branches.append(f"{esc}(?<!{before}{esc}){_source(tries[0][ch])}(?!{after})")
        if ch in tries[1]:
            branches.append(esc + _source(tries[1][ch]))
    return "(?:" + "|".join(branches) + ")" if branches else r"(?!x)x"


def _tree(words: Iterable[str]) -> _Node:
    root: _Node = {}
    for word in set(words):
        node = root
        for ch in word:
            node = node.setdefault(ch, {})
        node[_END] = {}
    return root
