"""Reading turns from files: JSONL of turn events, and LoCoMo's JSON format.

A malformed JSONL line is reported with its line number and skipped; the
other lines are still read. LoCoMo maps a conversation to a tenant and a
speaker to a user; each session becomes a session id and each ``dia_id`` a
turn id, timed from the session's date.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memgate.errors import InvalidEvent
from memgate.events import Role, TurnEvent, parse_turn


@dataclass
class ReadErrors:
    errors: list[str] = field(default_factory=list)

    def add(self, msg: str) -> None:
        self.errors.append(msg)

    def __bool__(self) -> bool:
        return bool(self.errors)


def detect_format(path: Path) -> str:
    with path.open("rb") as f:
        head = f.read(4096).lstrip()
    if head.startswith(b"["):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            return "jsonl"
        if (
            isinstance(data, list)
            and data
            and isinstance(data[0], dict)
            and "conversation" in data[0]
        ):
            return "locomo"
        return "json"
    return "jsonl"


def read_jsonl(path: Path, errors: ReadErrors) -> Iterator[TurnEvent]:
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.add(f"{path}:{lineno}: not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            if not isinstance(data, dict):
                errors.add(f"{path}:{lineno}: expected a JSON object, got {type(data).__name__}")
                continue
            try:
                yield parse_turn(data, where=f"{path}:{lineno}")
            except InvalidEvent as exc:
                errors.add(str(exc))


_SAFE = re.compile(r"[^A-Za-z0-9._:@+\-]+")


def _ident(s: str) -> str:
    return _SAFE.sub("-", s.strip()).strip("-") or "unknown"


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


def load_locomo(path: Path) -> list[LocomoConversation]:
    data = json.loads(path.read_text(encoding="utf-8"))
    convs = []
    for item in data:
        conv = item["conversation"]
        tenant = _ident(item["sample_id"])
        turns: list[TurnEvent] = []
        n = 1
        while f"session_{n}" in conv:
            session = conv[f"session_{n}"]
            start = parse_locomo_time(conv[f"session_{n}_date_time"])
            for i, t in enumerate(session):
                meta: dict[str, str | int | float | bool | None] = {"source": "locomo"}
                if t.get("blip_caption"):
                    meta["image_caption"] = str(t["blip_caption"])
                turns.append(
                    TurnEvent(
                        tenant_id=tenant,
                        user_id=_ident(t["speaker"]),
                        session_id=f"session_{n}",
                        turn_id=_ident(t["dia_id"]),
                        role=Role.USER,
                        content=t["text"],
                        ts=start + timedelta(seconds=30 * i),
                        metadata=meta,
                    )
                )
            n += 1
        convs.append(
            LocomoConversation(
                sample_id=tenant,
                turns=turns,
                qa=list(item.get("qa", [])),
                observation=dict(item.get("observation", {})),
            )
        )
    return convs


def read_turns(path: Path, errors: ReadErrors) -> Iterator[TurnEvent]:
    """Turns from a JSONL file or a LoCoMo JSON file (detected by content)."""
    fmt = detect_format(path)
    if fmt == "locomo":
        for conv in load_locomo(path):
            yield from conv.turns
    elif fmt == "json":
        data = json.loads(path.read_text(encoding="utf-8"))
        for i, item in enumerate(data if isinstance(data, list) else [data], start=1):
            try:
                yield parse_turn(item, where=f"{path}[{i}]")
            except InvalidEvent as exc:
                errors.add(str(exc))
    else:
        yield from read_jsonl(path, errors)
