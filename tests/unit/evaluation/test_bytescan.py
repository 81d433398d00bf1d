"""The byte scanner reads ClickHouse's compressed parts: a string that a raw
grep cannot see (entropy-coded by ZSTD) is found once the blocks are decoded."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import lz4.block
import pytest

from memgate.evaluation.bytescan import (
    METHOD_LZ4,
    BlockError,
    decode_blocks,
    read_file,
    scan,
)
from memgate.sinks.audit import ClickHouseAudit

NEEDLE = "Quillfeather-Marchbanks-7731"


def _words(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    vocab = ["ledger", "invoice", "harbor", "deploy", "canary", "billing", "north", "amber"]
    return [" ".join(rng.choice(vocab) for _ in range(12)) for _ in range(n)]


def _grep(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_a_string_in_a_zstd_column_is_found_decompressed_and_missed_raw(tmp_path: Path) -> None:
    root = tmp_path / "audit"
    rows = _words(3000, seed=1)
    rows[1234] = f"{rows[1234]} {NEEDLE} {rows[1234]}"
    with ClickHouseAudit.embedded(root) as audit:
        client = audit.client
        client.command(
            "CREATE TABLE scan_probe (id UInt32, body String CODEC(ZSTD(3))) "
            "ENGINE = MergeTree ORDER BY id"
        )
        client.insert("scan_probe", [[i, r] for i, r in enumerate(rows)], ["id", "body"])
    assert _grep(root, NEEDLE.encode()) == [], "a raw grep does not see it: the decoder matters"

    report = scan(root, {"probe": NEEDLE, "absent": "Zyzzogeton-0000"})
    hits = report.found("probe")
    assert hits and all(h.how == "decompressed" for h in hits)
    assert any(h.path.endswith(".bin") for h in hits)
    assert report.found("absent") == []
    assert report.decoded_files > 0 and report.undecoded == []
    # the report names labels and files, never the value
    assert NEEDLE not in repr(report.as_dict())


def test_lz4_blocks_are_decoded_and_a_value_cut_across_blocks_is_found(tmp_path: Path) -> None:
    text = ("prefix " * 40 + NEEDLE + " suffix" * 40).encode()
    cut = text.index(NEEDLE.encode()) + 5  # the needle straddles the two blocks
    blob = b""
    for part in (text[:cut], text[cut:]):
        payload = lz4.block.compress(part, store_size=False)
        blob += bytes(16) + struct.pack("<BII", METHOD_LZ4, len(payload) + 9, len(part)) + payload
    assert decode_blocks(blob) == text
    (tmp_path / "data.bin").write_bytes(blob)
    report = scan(tmp_path, {"probe": NEEDLE})
    assert [(h.path, h.how) for h in report.found("probe")] == [("data.bin", "decompressed")]


def test_files_of_other_formats_are_scanned_raw(tmp_path: Path) -> None:
    (tmp_path / "mutation_7.txt").write_text(f"commands: (DELETE WHERE user_id = '{NEEDLE}')")
    (tmp_path / "facts.sqlite3-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(40) + NEEDLE.encode())
    report = scan(tmp_path, {"probe": NEEDLE})
    assert {(h.path, h.how, h.kind) for h in report.found("probe")} == {
        ("mutation_7.txt", "raw", "clickhouse-mutation"),
        ("facts.sqlite3-wal", "raw", "sqlite"),
    }
    assert read_file(tmp_path / "facts.sqlite3-wal").decoded is None


def test_blocks_of_a_method_it_cannot_decode_are_listed(tmp_path: Path) -> None:
    payload = b"\x01\x82" + bytes(30)  # a codec chain (0x91): recognised, not decoded
    blob = bytes(16) + struct.pack("<BII", 0x91, len(payload) + 9, 64) + payload
    (tmp_path / "col.bin").write_bytes(blob)
    report = scan(tmp_path, {"probe": NEEDLE})
    assert report.undecoded == ["col.bin"]


def test_malformed_blocks_are_refused() -> None:
    with pytest.raises(BlockError):
        decode_blocks(bytes(16) + struct.pack("<BII", METHOD_LZ4, 9 + 100, 10) + b"short")
    with pytest.raises(ValueError):
        scan(Path("."), {"empty": ""})
