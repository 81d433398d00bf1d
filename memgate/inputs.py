"""Reading turns from files: JSONL of turn events, and LoCoMo's JSON format.

A bad JSONL line never stops a file: it is reported with its line number (and,
for a byte that is not UTF-8, its byte offset) and skipped, and the other lines
are still read. Each line is read as bytes, at most :data:`MAX_LINE_BYTES` of
them, and decoded on its own; invalid UTF-8, JSON that is malformed, nested too
deeply, holds ``NaN``/``Infinity`` or an integer of more than
:data:`MAX_INT_DIGITS` digits, and a turn that fails validation are each one
error for that line.

A JSON document (a LoCoMo file, or an array of turns) is read whole, up to
:data:`MAX_JSON_FILE_BYTES`; a malformed one is a single
:class:`InputFileError` naming the file and what is wrong where. LoCoMo maps a
conversation to a tenant and a speaker to a user; each session becomes a
session id and each ``dia_id`` a turn id, timed from the session's date.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO, Final

from pydantic import ValidationError

from memgate.core.errors import InvalidEvent, MemgateError
from memgate.core.events import Role, TurnEvent, parse_turn

#: Longest JSONL line read (bytes, newline excluded): a turn's content is at most
#: 100,000 characters, which JSON escapes can make 600,000 bytes; a longer line is
#: reported and skipped without being held in memory.
MAX_LINE_BYTES: Final = 1 << 20
#: Largest JSON document (LoCoMo file or array of turns) read whole.
MAX_JSON_FILE_BYTES: Final = 256 << 20
#: Longest integer literal accepted in JSON input.
MAX_INT_DIGITS: Final = 100
#: Bad lines reported one by one; the rest are counted.
MAX_KEPT_ERRORS: Final = 100
#: Bad lines after which a file is no longer read.
MAX_ERRORS: Final = 10_000

_BOM = "\ufeff"


class InputFileError(MemgateError):
    """A whole input file cannot be read; the message names the file and the problem."""


@dataclass
class ReadErrors:
    """The rejected lines of one input: the first :data:`MAX_KEPT_ERRORS` messages, all counted.

    A file of nothing but bad lines (a million ``1`` items) must not hold a
    million messages in memory nor print them: the count goes on, the messages
    stop, and after :data:`MAX_ERRORS` the reader stops reading the file
    (:attr:`full`) with one last message saying where.
    """

    errors: list[str] = field(default_factory=list)
    count: int = 0

    def add(self, msg: str) -> None:
        self.count += 1
        if len(self.errors) < MAX_KEPT_ERRORS:
            self.errors.append(msg)

    @property
    def full(self) -> bool:
        return self.count >= MAX_ERRORS

    @property
    def unshown(self) -> int:
        """Errors counted but not kept."""
        return self.count - len(self.errors)

    def stop(self, where: str) -> None:
        """Record that reading stopped at ``where`` (kept even when the list is full)."""
        self.errors.append(
            f"{where}: stopped reading after {self.count:,} bad lines; the turns before "
            "this point were ingested. Fix the file and ingest it again (turn ids make "
            "it idempotent)"
        )

    def __bool__(self) -> bool:
        return self.count > 0


class _LineError(ValueError):
    """One line cannot be read; the message says why (without the file and line)."""


# ------------------------------------------------------------------------ bytes and JSON


def _raw_lines(f: BinaryIO) -> Iterator[tuple[int, int, bytes | None]]:
    """``(line number, file offset, bytes)``; bytes is ``None`` for a line over the limit."""
    lineno = offset = 0
    while chunk := f.readline(MAX_LINE_BYTES + 1):
        lineno += 1
        start = offset
        offset += len(chunk)
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(b"\n"):
            while not chunk.endswith(b"\n"):  # skip the rest of the line, a piece at a time
                chunk = f.readline(1 << 16)
                if not chunk:
                    break
                offset += len(chunk)
            yield lineno, start, None
            continue
        yield lineno, start, chunk


def _decode(raw: bytes, offset: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _LineError(
            f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at byte {exc.start + 1} of the line "
            f"(file offset {offset + exc.start}); save the file as UTF-8"
        ) from None


def _no_constant(name: str) -> Any:
    raise _LineError(f"{name} is not a JSON number; write null or a finite number")


def _bounded_int(s: str) -> int:
    digits = len(s.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _LineError(f"an integer of {digits} digits; at most {MAX_INT_DIGITS} are accepted")
    return int(s)


def _loads(text: str) -> Any:
    """Strict JSON: no NaN/Infinity, bounded integers, nesting errors reported, not raised."""
    try:
        return json.loads(
            text,
            parse_constant=_no_constant,
            parse_int=_bounded_int,
            object_pairs_hook=_unique_keys,
        )
    except _DuplicateKey as exc:
        raise _LineError(f"the key {exc.args[0]!r} appears twice in one object") from None
    except json.JSONDecodeError as exc:
        msg, fix = (
            exc.msg.removesuffix(" at"),
            "",
        )  # "Invalid control character at": a place follows
        if msg == "Invalid control character" and exc.pos < len(text):
            code = ord(text[exc.pos])
            msg = f"a raw control character U+{code:04X} inside a string"
            fix = f": write it escaped, \\u{code:04x}"
        raise _LineError(
            f"not valid JSON ({msg} at line {exc.lineno} column {exc.colno}{fix})"
            if "\n" in text.rstrip()
            else f"not valid JSON ({msg} at column {exc.colno}{fix})"
        ) from None
    except RecursionError:
        raise _LineError("not readable: JSON nested too deeply") from None


class _DuplicateKey(ValueError):
    """Two members of one JSON object with the same name (JSON readers disagree on
    which one wins: refused rather than guessed)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def count_lines(path: Path) -> int | None:
    """Newlines in the file (a progress bar's total), read in pieces; ``None`` if unreadable."""
    n, last = 0, b"\n"
    try:
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                n += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError:
        return None
    return n + (last != b"\n")


def read_lines(path: Path, errors: ReadErrors) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every non-blank line that is UTF-8 and within the size limit.

    Lines that are not are reported in ``errors`` and skipped; a UTF-8 byte order
    mark at the start of the file is dropped.
    """
    with path.open("rb") as f:
        for lineno, offset, raw in _raw_lines(f):
            if errors.full:
                errors.stop(f"{path}:{lineno}")
                return
            if raw is None:
                errors.add(
                    f"{path}:{lineno}: longer than {MAX_LINE_BYTES:,} bytes; skipped "
                    "(one turn per line, content at most 100,000 characters)"
                )
                continue
            try:
                text = _decode(raw, offset)
            except _LineError as exc:
                errors.add(f"{path}:{lineno}: {exc}")
                continue
            if text.startswith(_BOM):  # at the file's start, or where two files were joined
                text = text[1:]
            if text.strip():
                yield lineno, text


def read_jsonl(path: Path, errors: ReadErrors) -> Iterator[TurnEvent]:
    """Turn events, one JSON object a line; every bad line is reported in ``errors``."""
    for lineno, text in read_lines(path, errors):
        where = f"{path}:{lineno}"
        try:
            data = _loads(text)
            if not isinstance(data, dict):
                raise _LineError(f"expected a JSON object, got {_json_type(data)}")
            turn = parse_turn(data, where=where)
        except InvalidEvent as exc:
            errors.add(str(exc))
            continue
        except _LineError as exc:
            errors.add(f"{where}: {exc}")
            continue
        except Exception as exc:  # a line never stops the file, whatever it holds
            errors.add(f"{where}: not readable ({type(exc).__name__}: {exc})")
            continue
        yield turn


def _first_line_is_json(path: Path) -> bool:
    """True when the file's first non-blank line is a whole JSON value and more lines follow."""
    seen_value = False
    with path.open("rb") as f:
        for _, _, raw in _raw_lines(f):
            if raw is None:
                return seen_value
            if not raw.strip(b" \t\r\n" + _BOM.encode()):
                continue
            if seen_value:
                return True
            try:
                _loads(raw.decode("utf-8", errors="strict").lstrip(_BOM))
            except (ValueError, UnicodeDecodeError):
                return False
            seen_value = True
    return False


def detect_format(path: Path) -> str:
    """``"locomo"``, ``"json"`` (an array of turns) or ``"jsonl"``, from the content.

    A file starting with ``[`` is one JSON document unless its first line is a
    complete JSON value followed by more lines (JSONL). A malformed JSON document
    raises :class:`InputFileError`.
    """
    with path.open("rb") as f:
        head = f.read(4096).lstrip(b" \t\r\n").removeprefix(_BOM.encode()).lstrip()
    if not head.startswith(b"[") or _first_line_is_json(path):
        return "jsonl"
    data = load_json_file(path)
    if isinstance(data, list) and data and isinstance(data[0], dict) and "conversation" in data[0]:
        return "locomo"
    return "json"


def load_json_file(path: Path) -> Any:
    """One JSON document, whole; any problem is one :class:`InputFileError`."""
    try:
        size = path.stat().st_size
        if size > MAX_JSON_FILE_BYTES:
            raise InputFileError(
                f"{path}: {size:,} bytes; JSON documents are read whole, up to "
                f"{MAX_JSON_FILE_BYTES:,} bytes: split it, or write it as JSONL (one turn a line)"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise InputFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputFileError(
            f"{path}: not UTF-8 text: byte 0x{raw[exc.start]:02x} at file offset {exc.start} "
            f"(line {line}); save the file as UTF-8"
        ) from None
    try:
        return _loads(text.removeprefix(_BOM))
    except _LineError as exc:
        raise InputFileError(f"{path}: {exc}") from None


# -------------------------------------------------------------------------------- LoCoMo

_SAFE = re.compile(r"[^A-Za-z0-9._:@+\-]+")


def _ident(s: str) -> str:
    return _SAFE.sub("-", s.strip()).strip("-") or "unknown"


def speaker_id(name: str) -> str:
    """A user id for a LoCoMo speaker name, different for every different name.

    An ASCII name keeps its letters (spaces and other separators become
    ``-``); a name with other letters is written in Punycode behind ``xn--``
    (as in domain names), so ``Zoë`` and ``Zoé``, or two Chinese names, stay
    two users instead of folding into one.

    >>> speaker_id("Caroline"), speaker_id("Mary Ann")
    ('Caroline', 'Mary-Ann')
    >>> speaker_id("Zoë") != speaker_id("Zoé"), speaker_id("李雷")
    (True, 'xn--7qvw47h')
    """
    name = unicodedata.normalize("NFC", name.strip())
    if name.isascii():
        return _ident(name)
    return "xn--" + _ident(name.encode("punycode").decode("ascii"))


def parse_locomo_time(s: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware UTC datetime."""
    s = " ".join(s.split())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(s, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo date {s!r}")


@dataclass(frozen=True)
class LocomoConversation:
    sample_id: str
    turns: list[TurnEvent]
    qa: list[dict[str, Any]]
    observation: dict[str, Any]


class _Bad(ValueError):
    """A LoCoMo structure problem; the message says where inside the conversation."""


def _field(obj: dict[str, Any], name: str, kind: type, where: str = "") -> Any:
    if name not in obj:
        raise _Bad(f"{where}missing {name!r}")
    v = obj[name]
    if not isinstance(v, kind) or isinstance(v, bool):
        names: dict[type, str] = {str: "a string", dict: "an object", list: "an array"}
        want = names.get(kind, kind.__name__)
        raise _Bad(f"{where}{name!r} must be {want}, got {_json_type(v)}")
    return v


def _speaker(name: str, speakers: dict[str, str], where: str) -> str:
    """The user id of ``name``; two names of one conversation never share an id."""
    uid = speaker_id(name)
    other = speakers.setdefault(uid, name)
    if other != name:
        raise _Bad(f"{where}speakers {other!r} and {name!r} would both be user {uid!r}")
    return uid


def _locomo_turns(conv: dict[str, Any], tenant: str) -> list[TurnEvent]:
    turns: list[TurnEvent] = []
    speakers: dict[str, str] = {}
    n = 1
    while f"session_{n}" in conv:
        session = _field(conv, f"session_{n}", list)
        when = _field(conv, f"session_{n}_date_time", str)
        try:
            start = parse_locomo_time(when)
        except ValueError as exc:
            raise _Bad(f"session_{n}_date_time: {exc}") from None
        for i, t in enumerate(session):
            where = f"session_{n} turn {i + 1}: "
            if not isinstance(t, dict):
                raise _Bad(f"{where}must be an object, got {_json_type(t)}")
            meta: dict[str, str | int | float | bool | None] = {"source": "locomo"}
            if t.get("blip_caption"):
                meta["image_caption"] = str(t["blip_caption"])
            try:
                turns.append(
                    TurnEvent(
                        tenant_id=tenant,
                        user_id=_speaker(_field(t, "speaker", str, where), speakers, where),
                        session_id=f"session_{n}",
                        turn_id=_ident(_field(t, "dia_id", str, where)),
                        role=Role.USER,
                        content=_field(t, "text", str, where),
                        ts=start + timedelta(seconds=30 * i),
                        metadata=meta,
                    )
                )
            except ValidationError as exc:
                raise _Bad(
                    str(InvalidEvent.from_validation(exc, where=where.rstrip(": ")))
                ) from None
        n += 1
    return turns


def load_locomo(path: Path) -> list[LocomoConversation]:
    """Every conversation of a LoCoMo file; a malformed file is one :class:`InputFileError`."""
    data = load_json_file(path)
    if not isinstance(data, list):
        raise InputFileError(
            f"{path}: a LoCoMo file is an array of conversations, got {_json_type(data)}"
        )
    convs = []
    for k, item in enumerate(data, start=1):
        where = f"conversation {k}"
        try:
            if not isinstance(item, dict):
                raise _Bad(f"must be an object, got {_json_type(item)}")
            sample_id = _field(item, "sample_id", str)
            where += f" ({sample_id!r})"
            tenant = _ident(sample_id)
            turns = _locomo_turns(_field(item, "conversation", dict), tenant)
            qa = _field(item, "qa", list) if "qa" in item else []
            observation = _field(item, "observation", dict) if "observation" in item else {}
        except _Bad as exc:
            raise InputFileError(f"{path}: {where}: {exc}") from None
        convs.append(LocomoConversation(tenant, turns, list(qa), dict(observation)))
    return convs


def read_turns(path: Path, errors: ReadErrors) -> Iterator[TurnEvent]:
    """Turns from a JSONL file, a JSON array of turns or a LoCoMo file (detected by content)."""
    fmt = detect_format(path)
    if fmt == "locomo":
        for conv in load_locomo(path):
            yield from conv.turns
    elif fmt == "json":
        data = load_json_file(path)
        for i, item in enumerate(data if isinstance(data, list) else [data], start=1):
            if errors.full:
                errors.stop(f"{path}[{i}]")
                return
            try:
                yield parse_turn(item, where=f"{path}[{i}]")
            except InvalidEvent as exc:
                errors.add(str(exc))
    else:
        yield from read_jsonl(path, errors)
