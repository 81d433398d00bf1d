"""memgate.core.memo.TextMemo: a bounded memo of a pure function of one text."""

from __future__ import annotations

import threading

import pytest

from memgate.core.memo import TextMemo


def test_a_repeated_text_runs_the_function_once() -> None:
    calls: list[str] = []
    memo: TextMemo[int] = TextMemo(3)

    def fn(t: str) -> int:
        calls.append(t)
        return len(t)

    assert [memo.get("abc", fn) for _ in range(5)] == [3] * 5
    assert calls == ["abc"]
    assert (memo.hits, memo.misses) == (4, 1)


def test_the_memo_never_holds_more_than_maxsize_and_drops_the_least_recent() -> None:
    calls: list[str] = []
    memo: TextMemo[str] = TextMemo(3)

    def fn(t: str) -> str:
        calls.append(t)
        return t.upper()

    for i in range(100):
        assert memo.get(f"text {i}", fn) == f"TEXT {i}"
        assert len(memo) <= 3
    assert len(memo) == 3
    memo.get("text 97", fn)  # still held: no call
    assert calls[-1] == "text 99"
    memo.get("text 0", fn)  # long dropped: runs again
    assert calls[-1] == "text 0"
    memo.get("text 97", fn)  # used just before "text 0": kept
    assert calls[-1] == "text 0"


def test_a_recent_use_keeps_an_entry() -> None:
    calls: list[str] = []
    memo: TextMemo[int] = TextMemo(2)

    def fn(t: str) -> int:
        calls.append(t)
        return len(t)

    memo.get("a", fn)
    memo.get("bb", fn)
    memo.get("a", fn)  # "a" is now the most recent
    memo.get("ccc", fn)  # drops "bb"
    memo.get("a", fn)
    assert calls == ["a", "bb", "ccc"]


def test_maxsize_zero_keeps_nothing() -> None:
    calls: list[str] = []
    memo: TextMemo[int] = TextMemo(0)
    for _ in range(3):
        memo.get("x", lambda t: calls.append(t) or 1)
    assert calls == ["x", "x", "x"] and len(memo) == 0
    with pytest.raises(ValueError):
        TextMemo(-1)


def test_no_raw_text_is_kept_as_a_key() -> None:
    memo: TextMemo[int] = TextMemo(4)
    secret = "my password is hunter2-hunter2"
    memo.get(secret, len)
    keys = list(memo._data)
    assert len(keys) == 1 and isinstance(keys[0], bytes) and len(keys[0]) == 16
    assert b"hunter2" not in keys[0]


def test_texts_differing_only_in_case_or_surrogates_are_distinct() -> None:
    memo: TextMemo[str] = TextMemo(8)
    assert memo.get("Bob", str.lower) == "bob"
    assert memo.get("bob", lambda t: t + "!") == "bob!"
    assert memo.get("\ud800", lambda t: "lone surrogate") == "lone surrogate"


def test_threads_share_one_memo() -> None:
    memo: TextMemo[int] = TextMemo(16)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(500):
                t = f"t{(i * n) % 40}"
                assert memo.get(t, len) == len(t)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(memo) <= 16
