"""The process's memos keep nothing a turn said raw, and an erasure empties them.

Session 19 (attack19). The stages memoise pure functions of a text (``TextMemo``): the
references memo kept a deletion request's ``Reference`` objects, whose topic and clause
quote the turn raw, before redaction ("forget my card number 4111 1111 1111 1111"), for
the next 256 texts, and after ``forget`` of its user. Every memo was keyed by an
unkeyed digest of the text, which confirms a guess of a short text ("my PIN is 4711").
Now a reference is read again rather than kept, the keys are keyed by a secret of the
process, and an erasure (user or fact) empties every memo and the embedder's cache.
"""

from __future__ import annotations

import gc
import hashlib
from pathlib import Path

from memgate import Memory
from memgate.core.embedding import MiniLMEmbedder
from memgate.core.memo import TextMemo
from memgate.stages.references import REFERENCES_MEMO, find_references

CARD = "4111 1111 1111 1111"
REQUEST = f"Please forget my card number {CARD} and my password Sup3rS3cretPw!x."


def _memos() -> list[TextMemo[object]]:
    return [o for o in gc.get_objects() if isinstance(o, TextMemo)]


def _raw_in_memos(*needles: str) -> list[str]:
    found = []
    for memo in _memos():
        for value in list(memo._data.values()):
            text = repr(value).lower()
            found += [n for n in needles if n.lower() in text]
    return found


def test_a_reference_quoting_its_turn_is_not_kept_in_the_memo() -> None:
    REFERENCES_MEMO.clear()
    refs = find_references(REQUEST)
    assert refs and CARD in refs[0].topic  # the reference still reads the topic
    assert find_references(REQUEST) == refs  # read again: the same answer
    assert len(REFERENCES_MEMO) == 0
    assert find_references("I like green tea.") == []
    assert len(REFERENCES_MEMO) == 1  # "no reference" is kept: it quotes nothing


def test_a_memo_key_is_no_plain_digest_of_the_text() -> None:
    memo: TextMemo[int] = TextMemo(4)
    memo.get("my PIN is 4711", len)
    (key,) = memo._data
    for size in (16, 32, 64):
        assert key != hashlib.blake2b(b"my PIN is 4711", digest_size=size).digest()
    assert key != hashlib.sha256(b"my PIN is 4711").digest()[:16]


def test_forget_empties_every_memo_and_the_embedders_cache(tmp_path: Path) -> None:
    with Memory(data_dir=tmp_path / "data", embedder="hashing") as memory:
        memory.add(
            [{"role": "user", "content": f"I live in Berlin and my card is {CARD}."},
             {"role": "user", "content": REQUEST},
             {"role": "user", "content": "Bitte lösche alles über meine Adresse Hauptstraße 5."}],
            tenant="t1", user="alice", session="s1",
        )  # fmt: skip
        assert not _raw_in_memos(CARD, "sup3rs3cretpw", "hauptstraße")
        assert sum(len(m) for m in _memos()) > 0  # the memos were used
        memory.forget("t1", "alice")
        assert sum(len(m) for m in _memos()) == 0


def test_clear_memos_empties_the_minilm_cache_too() -> None:
    from memgate.core.memo import clear_memos

    emb = MiniLMEmbedder(cache_size=8, runtime="numpy")
    emb._cache[b"k" * 16] = None  # type: ignore[assignment]
    assert emb.cache_len() == 1
    assert clear_memos() >= 1
    assert emb.cache_len() == 0
