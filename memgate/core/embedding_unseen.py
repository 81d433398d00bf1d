"""What an embedder could not read in a text: a cosine only speaks for what it read.

MiniLM's English WordPiece vocabulary maps most Chinese characters (and other
characters it lacks) to ``[UNK]``: "我每天早上喝一杯豆浆" and "我每天早上喝一杯牛奶"
("soy milk", "cow's milk") become the same word pieces, so their cosine is exactly 1.0.
Resolution decides "the same fact" (a near-duplicate fold, a consolidation merge) or
"the fact this deletion names" on a high cosine; such a decision also requires that the
two texts' unseen parts are equal (:func:`unseen_apart`). Other evidence (usem's
``meaning``, the paraphrase rules, the pair classifier) may still join such a pair.

An embedder that reads every character (the hashing embedder, an embedder without an
``unseen`` method) has nothing unseen: ``""``.

>>> unseen_apart(no_unseen, "user 我喝豆浆", "user 我喝牛奶")
False
>>> unread_pieces([5, 100, 100, 7], [(0, 1), (1, 2), (2, 4), (4, 5)], "a豆浆牛b", 100)
'浆牛豆'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["Unseen", "no_unseen", "unread_pieces", "unseen_apart", "unseen_of"]

#: ``text -> its unseen characters`` (sorted: a multiset); ``""`` when all were read.
Unseen = Callable[[str], str]


def no_unseen(text: str) -> str:
    """The :data:`Unseen` of an embedder that reads every character."""
    return ""


def unseen_of(embedder: object) -> Unseen:
    """The embedder's ``unseen`` method, or :func:`no_unseen` when it has none."""
    fn = getattr(embedder, "unseen", None)
    return fn if callable(fn) else no_unseen


def unread_pieces(
    ids: Sequence[int], offsets: Sequence[tuple[int, int]], text: str, unk_id: int
) -> str:
    """The characters of ``text`` under the word pieces ``unk_id`` stands for, sorted."""
    chars = "".join(text[s:e] for i, (s, e) in zip(ids, offsets, strict=True) if i == unk_id)
    return "".join(sorted(chars))


def unseen_apart(unseen: Unseen, a: str, b: str) -> bool:
    """Whether texts ``a`` and ``b`` differ in what the encoder could not read: their
    cosine says nothing of that difference, so it cannot make them the same fact."""
    return unseen(a) != unseen(b)
