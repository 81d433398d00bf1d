"""Every byte a store keeps, searched for given strings, compressed files decoded.

A plain ``grep`` over a data dir misses what ClickHouse (and chDB) store: a
part's ``.bin`` files, its marks and primary index are sequences of
compressed blocks. Each block is::

    16 bytes   checksum (CityHash128 of what follows)
     1 byte    method: 0x02 none, 0x82 LZ4, 0x90 ZSTD
     4 bytes   compressed size, little-endian, counting these 9 header bytes
     4 bytes   decompressed size, little-endian
     ...       the compressed payload (compressed size - 9 bytes)

:func:`scan` walks every file under a folder, reads it raw and, when the
whole file parses as such blocks, decompressed too (the blocks of one file
concatenated, so a value cut across two blocks is still found), and reports
which needles it found where: the file, and whether in the raw bytes or only
after decompression. Needles are passed by label and reported by label; a
report never holds a needle's value. SQLite files (main, ``-wal``, ``-shm``)
and ClickHouse mutation files (``mutation_*.txt``) are plain: they are
scanned raw.

A file whose blocks use another method (a codec chain, an encryption codec)
is listed in :attr:`ScanReport.undecoded`: its raw bytes were scanned, its
content was not, so a caller can fail rather than trust a blind spot.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     _ = (Path(d) / "notes.txt").write_bytes(b"user alice@example.com said hi")
...     report = scan(Path(d), {"alice's address": "alice@example.com", "bob": "bob@x.org"})
...     [(h.label, h.path, h.how) for h in report.hits]
[("alice's address", 'notes.txt', 'raw')]
"""

from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import AnyStr, Literal

__all__ = [
    "METHOD_LZ4",
    "METHOD_NONE",
    "METHOD_ZSTD",
    "BlockError",
    "Hit",
    "KnownIds",
    "ScanReport",
    "ScannedFile",
    "coincidences",
    "decode_blocks",
    "read_file",
    "scan",
    "secret_in",
]

METHOD_NONE = 0x02
METHOD_LZ4 = 0x82
METHOD_ZSTD = 0x90
#: Method bytes of other ClickHouse codecs (chains, delta, encryption...): a file
#: made of such blocks is recognised but cannot be decoded here.
_OTHER_METHODS = frozenset(range(0x91, 0xA0))
_CHECKSUM = 16
_HEADER = 9  # method byte and the two sizes
_MAX_BLOCK = 1 << 30  # a decompressed block bigger than this is not a ClickHouse block

How = Literal["raw", "decompressed"]


class BlockError(ValueError):
    """The bytes are not (entirely) a sequence of ClickHouse compressed blocks."""


class UnsupportedMethod(BlockError):
    """Well-formed blocks whose method this module cannot decompress."""


def _decompress(method: int, payload: bytes, size: int) -> bytes:
    if method == METHOD_NONE:
        out = payload
    elif method == METHOD_LZ4:
        import lz4.block

        try:
            out = lz4.block.decompress(payload, uncompressed_size=size)
        except lz4.block.LZ4BlockError as exc:
            raise BlockError(f"bad LZ4 block: {exc}") from exc
    elif method == METHOD_ZSTD:
        import zstandard

        try:
            out = zstandard.ZstdDecompressor().decompress(payload, max_output_size=size)
        except zstandard.ZstdError as exc:
            raise BlockError(f"bad ZSTD block: {exc}") from exc
    elif method in _OTHER_METHODS:
        raise UnsupportedMethod(f"compression method 0x{method:02x}")
    else:
        raise BlockError(f"unknown compression method 0x{method:02x}")
    if len(out) != size:
        raise BlockError(f"block decompressed to {len(out)} bytes, header says {size}")
    return out


def decode_blocks(data: bytes) -> bytes:
    """The concatenated content of a file made of ClickHouse compressed blocks.

    Raises :class:`BlockError` unless ``data`` is a whole number of valid
    blocks (so a file of another format is not mistaken for one), and
    :class:`UnsupportedMethod` (a subclass) for a method other than none,
    LZ4 or ZSTD.

    >>> import lz4.block
    >>> text = b"the quick brown fox " * 8
    >>> payload = lz4.block.compress(text, store_size=False)
    >>> header = struct.pack("<BII", METHOD_LZ4, len(payload) + 9, len(text))
    >>> decode_blocks(bytes(16) + header + payload) == text
    True
    >>> try:
    ...     decode_blocks(b"SQLite format 3\\x00" + bytes(100))
    ... except BlockError as exc:
    ...     print(exc)
    block at offset 0 has a compressed size of 0 bytes
    """
    if not data:
        raise BlockError("empty")
    out: list[bytes] = []
    pos = 0
    end = len(data)
    while pos < end:
        if end - pos < _CHECKSUM + _HEADER:
            raise BlockError(f"truncated block header at offset {pos}")
        method, compressed, size = struct.unpack_from("<BII", data, pos + _CHECKSUM)
        if compressed < _HEADER:
            raise BlockError(f"block at offset {pos} has a compressed size of {compressed} bytes")
        if pos + _CHECKSUM + compressed > end:
            raise BlockError(f"block at offset {pos} overruns the file")
        if size > _MAX_BLOCK:
            raise BlockError(f"block of {size} bytes at offset {pos}")
        payload = data[pos + _CHECKSUM + _HEADER : pos + _CHECKSUM + compressed]
        if method == METHOD_NONE and len(payload) != size:
            raise BlockError(f"uncompressed block at offset {pos} has the wrong size")
        out.append(_decompress(method, payload, size))
        pos += _CHECKSUM + compressed
    return b"".join(out)


_DIGITS = frozenset("0123456789") | frozenset(b"0123456789")
_HEX = _DIGITS | frozenset("abcdefABCDEF") | frozenset(b"abcdefABCDEF")
_DOT = frozenset(".") | frozenset(b".")


def _span(hay: AnyStr, lo: int, hi: int, chars: frozenset[object]) -> tuple[int, int]:
    """``[lo, hi)`` grown to the maximal run of ``chars`` around it."""
    while lo > 0 and hay[lo - 1] in chars:
        lo -= 1
    while hi < len(hay) and hay[hi] in chars:
        hi += 1
    return lo, hi


def _fraction_start(hay: AnyStr, start: int) -> int | None:
    """Where the dot is, when the digits at ``start`` are a decimal's fractional digits."""
    d, _ = _span(hay, start, start, _DIGITS)
    return d - 1 if d >= 2 and hay[d - 1] in _DOT and hay[d - 2] in _DIGITS else None


def _coincidental(hay: AnyStr, start: int, n: int) -> bool:
    """Is the digit needle at ``hay[start:start + n]`` part of a longer number or id?

    Yes when the maximal run of hex characters around it is at least ``2 * n``
    long (a hex id, a digest, a 16-digit number), or when the maximal run of
    digits around it is the fractional part of a decimal (``56.318406Z``)."""
    lo, hi = _span(hay, start, start + n, _HEX)
    return hi - lo >= 2 * n or _fraction_start(hay, start) is not None


def _run_around(hay: AnyStr, start: int, n: int) -> AnyStr:
    """The token a coincidental occurrence sits in: the maximal hex run around it,
    or, for a decimal's fractional digits, the decimal (integer digits, the dot and
    the fractional digits)."""
    lo, hi = _span(hay, start, start + n, _HEX)
    if hi - lo >= 2 * n:
        return hay[lo:hi]
    dot = _fraction_start(hay, start)
    if dot is None:  # not coincidental: the needle alone
        return hay[start : start + n]
    lo, _ = _span(hay, dot, dot, _DIGITS)
    _, hi = _span(hay, start, start + n, _DIGITS)
    return hay[lo:hi]


def _digits_only(needle: str | bytes) -> bool:
    return bool(needle) and all(c in _DIGITS for c in needle)


def coincidences(text: str, needle: str) -> set[str]:
    """The ids, digests and decimals of ``text`` that hold the digit needle by chance.

    Each is the whole token (:func:`_coincidental`), so a file's bytes can be asked
    whether an occurrence there is that same token (:func:`secret_in`'s ``covers``).
    Empty for a needle that is not digits only."""
    out: set[str] = set()
    if not _digits_only(needle):
        return out
    n = len(needle)
    i = text.find(needle)
    while i >= 0:
        if _coincidental(text, i, n):
            out.add(_run_around(text, i, n))
        i = text.find(needle, i + 1)
    return out


_HEX_RUN = re.compile(r"[0-9A-Fa-f]{12,}")


@dataclass(frozen=True)
class KnownIds:
    """The hex ids and digests that the stores' read-back holds (maximal runs of at
    least 12 hex characters), to tell a digit needle that straddles two of them, written
    back to back in a file (a fixed-length column), from a secret's bytes."""

    tokens: frozenset[bytes] = frozenset()
    lengths: tuple[int, ...] = ()

    @classmethod
    def of(cls, texts: Iterable[str]) -> KnownIds:
        tokens = frozenset(m.group(0).encode() for t in texts for m in _HEX_RUN.finditer(t))
        return cls(tokens, tuple(sorted({len(t) for t in tokens})))

    def straddled(self, hay: bytes, start: int, n: int) -> bool:
        """Do the bytes ``hay[start:start + n]`` lie across two known ids back to back
        (the end of one whole id, then the start of another whole id)?"""
        for cut in range(start + 1, start + n):
            if any(cut >= k and hay[cut - k : cut] in self.tokens for k in self.lengths) and any(
                hay[cut : cut + k] in self.tokens for k in self.lengths
            ):
                return True
        return False


def _covered(hay: AnyStr, start: int, n: int, needle: AnyStr, covers: Iterable[AnyStr]) -> bool:
    for token in covers:
        j = token.find(needle)
        while j >= 0:
            at = start - j
            if at >= 0 and hay[at : at + len(token)] == token:
                return True
            j = token.find(needle, j + 1)
    return False


def secret_in(
    hay: AnyStr,
    needle: AnyStr,
    covers: Iterable[AnyStr] | None = None,
    ids: KnownIds | None = None,
) -> bool:
    """Does ``hay`` hold the secret ``needle``? The leak and erasure checks' match.

    A needle of anything but ASCII digits is a plain substring match. A needle of
    ASCII digits only (a PIN, an alarm code) occurs by chance inside the ids,
    digests, timestamps and floats every store holds:

    * in one value read back from a store (``covers`` None), an occurrence counts
      unless it is coincidental (:func:`_coincidental`): inside a maximal run of hex
      characters at least twice the needle's length, or inside the digits after
      ``<digit>.``. An occurrence next to one other digit or letter still counts (a
      length-prefix byte can be one);
    * in a file's bytes (``covers`` given), an occurrence counts unless the bytes
      there spell one of ``covers`` around it (a whole id or decimal that the
      stores' read-back holds with the needle inside by chance:
      :func:`coincidences`), or, with ``ids``, the bytes lie across two whole ids of
      the read-back written back to back (:meth:`KnownIds.straddled`). Bytes no
      read-back accounts for (a freed page, a value glued to a neighbouring column)
      are not excused by their shape.

    :meth:`ScannedFile.find` (and :func:`scan`) stay exact."""
    n = len(needle)
    if not _digits_only(needle):
        return needle in hay
    tokens = None if covers is None else list(covers)
    i = hay.find(needle)
    while i >= 0:
        if tokens is None:
            if not _coincidental(hay, i, n):
                return True
        elif not _covered(hay, i, n, needle, tokens) and not (
            ids is not None and isinstance(hay, bytes) and ids.straddled(hay, i, n)
        ):
            return True
        i = hay.find(needle, i + 1)
    return False


Kind = Literal["clickhouse-part", "clickhouse-mutation", "sqlite", "other"]


def _kind(path: Path) -> Kind:
    name = path.name
    if name.startswith("mutation_") and name.endswith(".txt"):
        return "clickhouse-mutation"
    if name.endswith((".sqlite3", ".sqlite3-wal", ".sqlite3-shm", ".db", ".db-wal", ".db-shm")):
        return "sqlite"
    if "store" in path.parts or name.endswith((".bin", ".cidx", ".mrk", ".mrk2", ".mrk3")):
        return "clickhouse-part"
    return "other"


@dataclass(frozen=True)
class ScannedFile:
    """One file's bytes: raw, and decompressed when it is made of ClickHouse blocks."""

    path: Path
    raw: bytes
    decoded: bytes | None
    kind: Kind
    undecoded_reason: str | None = None
    """Set when the file is made of blocks of a method this module cannot decode."""

    def find(self, needle: bytes) -> How | None:
        """Where ``needle`` is: ``raw``, ``decompressed`` (only there), or None."""
        if needle in self.raw:
            return "raw"
        if self.decoded is not None and needle in self.decoded:
            return "decompressed"
        return None

    def find_secret(
        self, needle: bytes, covers: Iterable[bytes] = (), ids: KnownIds | None = None
    ) -> How | None:
        """As :meth:`find`, matching with :func:`secret_in` (the leak checks' rule):
        an occurrence of a digit needle is excused only where the bytes spell one of
        ``covers`` around it or lie across two of ``ids`` (none given: every
        occurrence counts)."""
        tokens = list(covers)
        if self.decoded is not None and (tokens or ids) and _digits_only(needle):
            # ClickHouse blocks: the raw bytes are the compressed form of the decoded
            # ones, whose literals are cut-up pieces of the same values; a digit
            # needle is judged where its neighbours are whole, in the decoded bytes
            if not secret_in(self.decoded, needle, tokens, ids):
                return None
            return "raw" if needle in self.raw else "decompressed"
        if secret_in(self.raw, needle, tokens, ids):
            return "raw"
        if self.decoded is not None and secret_in(self.decoded, needle, tokens, ids):
            return "decompressed"
        return None


def read_file(path: Path) -> ScannedFile:
    """Read ``path`` raw and, if it is made of ClickHouse blocks, decompressed.

    Raises :class:`OSError` when the file cannot be read (removed meanwhile).
    """
    raw = path.read_bytes()
    decoded: bytes | None = None
    reason: str | None = None
    if len(raw) >= _CHECKSUM + _HEADER and raw[_CHECKSUM] in (
        METHOD_NONE,
        METHOD_LZ4,
        METHOD_ZSTD,
        *_OTHER_METHODS,
    ):
        try:
            decoded = decode_blocks(raw)
        except UnsupportedMethod as exc:
            reason = str(exc)
        except BlockError:
            decoded = None  # not a block file after all: scanned raw only
    return ScannedFile(
        path=path, raw=raw, decoded=decoded, kind=_kind(path), undecoded_reason=reason
    )


def walk(root: Path) -> Iterator[Path]:
    """Every regular file under ``root`` (symlinks not followed), sorted.

    A folder removed while it is listed (a store's temporary part, gone once its
    mutation finished) is skipped, as a removed file is: ``os.walk`` ignores the
    error where ``Path.rglob`` raised it."""
    found: list[Path] = []
    for folder, _dirs, files in os.walk(root):
        found.extend(Path(folder) / name for name in files)
    for p in sorted(found):
        if p.is_file() and not p.is_symlink():
            yield p


@dataclass(frozen=True)
class Hit:
    label: str
    """The needle's label (never its value)."""
    path: str
    """The file, relative to the scanned folder."""
    how: How
    kind: Kind

    def describe(self) -> str:
        return f"{self.path} ({self.how})"


@dataclass
class ScanReport:
    root: str
    files: int = 0
    decoded_files: int = 0
    raw_bytes: int = 0
    decoded_bytes: int = 0
    hits: list[Hit] = field(default_factory=list)
    undecoded: list[str] = field(default_factory=list)
    """Files of ClickHouse blocks this scanner could not decompress (relative paths)."""

    def found(self, label: str) -> list[Hit]:
        return [h for h in self.hits if h.label == label]

    @property
    def labels(self) -> list[str]:
        """Labels found anywhere, in first-found order."""
        return list(dict.fromkeys(h.label for h in self.hits))

    def as_dict(self) -> dict[str, object]:
        return {
            "root": self.root,
            "files": self.files,
            "decoded_files": self.decoded_files,
            "raw_bytes": self.raw_bytes,
            "decoded_bytes": self.decoded_bytes,
            "hits": [
                {"label": h.label, "path": h.path, "how": h.how, "kind": h.kind} for h in self.hits
            ],
            "undecoded": self.undecoded,
        }


def scan(root: Path, needles: Mapping[str, str | bytes]) -> ScanReport:
    """Search every file under ``root`` for every needle (label -> value).

    Strings are searched as UTF-8. Each (needle, file) pair is reported once,
    as ``raw`` when the raw bytes hold it, else ``decompressed`` when only the
    decoded blocks do. A file removed during the walk is skipped.
    """
    encoded = {
        label: value.encode("utf-8") if isinstance(value, str) else bytes(value)
        for label, value in needles.items()
    }
    empty = [label for label, value in encoded.items() if not value]
    if empty:
        raise ValueError(f"empty needle(s): {', '.join(empty)}")
    report = ScanReport(root=str(root))
    for path in walk(root):
        try:
            f = read_file(path)
        except OSError:
            continue
        rel = str(path.relative_to(root))
        report.files += 1
        report.raw_bytes += len(f.raw)
        if f.decoded is not None:
            report.decoded_files += 1
            report.decoded_bytes += len(f.decoded)
        if f.undecoded_reason is not None:
            report.undecoded.append(rel)
        for label, needle in encoded.items():
            how = f.find(needle)
            if how is not None:
                report.hits.append(Hit(label=label, path=rel, how=how, kind=f.kind))
    return report
