"""A short numeric secret (a PIN, an alarm code) is not "found" by coincidence.

The stores of one leak run hold hex ids, digests, timestamps with microseconds
and floats: about 0.84 % of all six-digit strings occur in them by chance, so a
six-digit secret "leaked" in about 5 % of development runs (``dev2-pt-code-short``,
318406, not reproduced on rerun). An occurrence inside a long hex run or a
decimal's fractional digits is coincidental; anywhere else it still counts.
"""

from __future__ import annotations

import struct
from pathlib import Path

import lz4.block
import pytest

from memgate.core.events import TurnEvent
from memgate.evaluation import erasure
from memgate.evaluation.bytescan import METHOD_LZ4, ScannedFile, decode_blocks, secret_in
from memgate.evaluation.leaks import Haystacks

SECRET = "318406"


def _texts(*texts: str) -> Haystacks:
    hay = Haystacks()
    hay.add("retrieval.sqlite", texts)
    return hay


def _file(raw: bytes, decoded: bytes | None = None, *read_back: str) -> Haystacks:
    """A store file's bytes, with the texts the stores' SQL read-back holds."""
    hay = _texts(*read_back) if read_back else Haystacks()
    hay.files["files:store/x.bin"] = ScannedFile(
        path=Path("store/x.bin"), raw=raw, decoded=decoded, kind="clickhouse-part"
    )
    return hay


COINCIDENCES = {
    "a 24-char hex id": "fact 5f2a318406c9e0b1d7a4f3e2 superseded",
    "a 16-digit number": "order 4402318406771925 shipped",
    "the microseconds of an ISO timestamp": "2026-12-04T23:17:56.318406Z",
    "a float's decimals": "score 0.87318406 kept",
    "an uppercase digest": "sha DEADBEEF318406CAFE",
}


@pytest.mark.parametrize("text", COINCIDENCES.values(), ids=list(COINCIDENCES))
def test_a_numeric_secret_inside_an_id_a_number_or_decimals_is_not_a_leak(text: str) -> None:
    assert SECRET in text
    assert _texts(text).find(SECRET) == []
    # in a file, excused where the bytes spell the id or decimal that the read-back holds
    assert _file(text.encode(), None, text).find(SECRET) == []
    assert _file(b"\x00" * 20, text.encode(), text).find(SECRET) == []
    # bytes that no read-back accounts for are not excused by their shape
    assert _file(text.encode()).find(SECRET) == ["files:store/x.bin"]


def test_bytes_glued_to_a_known_id_still_leak() -> None:
    # a freed page: an id column right before a text that begins with the secret;
    # the read-back holds the id (its row is live elsewhere), not the text
    fact_id = "5f2ac9e0b1d7a4f3e2b8c7d6"
    raw = b"\x18" + fact_id.encode() + b"318406 is the code"
    assert _file(raw, None, f"fact {fact_id} superseded").find(SECRET) == ["files:store/x.bin"]
    # a token of the read-back that covers only part of the run does not excuse it
    assert _file(b"ab" + raw, None, f"id {fact_id}").find(SECRET) == ["files:store/x.bin"]


def test_a_needle_across_two_known_ids_back_to_back_is_excused() -> None:
    # a fixed-length column: two digests written with nothing between them
    first, second = "9c1e7d2b4a6f8e0c3b5a7d31", "8406e2f4a6c8b0d1e3f5a7c9"
    raw = (first + second).encode()
    assert SECRET in raw.decode()
    assert _file(raw, None, f"d {first}", f"d {second}").find(SECRET) == []
    # only one of the two is known: the bytes are not accounted for
    assert _file(raw, None, f"d {first}").find(SECRET) == ["files:store/x.bin"]
    # a secret glued after a known id, then a known id: the secret's digits are not an id
    glued = (first[:-2] + "xx" + SECRET + second).encode()
    assert _file(glued, None, f"d {first}", f"d {second}").find(SECRET) == ["files:store/x.bin"]


def test_a_known_id_in_the_bytes_beside_other_columns_is_excused() -> None:
    fact_id = "5f2a318406c9e0b1d7a4f3e2"
    raw = b"\x06user_1\x18" + fact_id.encode() + b"\x37" + b"0" * 55  # a digit length byte after it
    assert _file(raw, None, f"fact {fact_id} superseded").find(SECRET) == []


LEAKS = {
    "its own token": "the alarm code is 318406, do not share",
    "after a colon": "code:318406",
    "after one letter": "PIN318406",
    "after one digit": "x 1318406 is the code",
    "before one letter": "318406a",
    "a short hex neighbourhood": "ab318406cd",
    "a dot without a digit before it": "version .318406 here",
}


@pytest.mark.parametrize("text", LEAKS.values(), ids=list(LEAKS))
def test_a_numeric_secret_anywhere_else_is_a_leak(text: str) -> None:
    assert _texts(text).find(SECRET) == ["retrieval.sqlite"]
    assert _file(text.encode()).find(SECRET) == ["files:store/x.bin"]


def test_a_length_prefix_byte_that_is_a_digit_does_not_hide_it() -> None:
    # a string of 49 bytes is prefixed by 0x31, the character "1"
    assert _file(b"\x051318406 is the code").find(SECRET) == ["files:store/x.bin"]
    assert secret_in(b"\x051318406 is the code", SECRET.encode())


def test_a_numeric_secret_in_a_decoded_clickhouse_block_is_a_leak() -> None:
    column = (
        b"".join(
            bytes([len(s)]) + s
            for s in (
                b"4402318406771925",
                b"Alarm code is 318406, thanks",
                b"5f2a318406c9e0b1d7a4f3e2",
            )
        )
        * 20
    )
    payload = lz4.block.compress(column, store_size=False)
    raw = bytes(16) + struct.pack("<BII", METHOD_LZ4, len(payload) + 9, len(column)) + payload
    decoded = decode_blocks(raw)
    raw_only = raw.replace(SECRET.encode(), b"000000")  # whatever LZ4 kept literal
    assert _file(raw_only, decoded=decoded).find(SECRET) == ["files:store/x.bin (decompressed)"]


def test_one_real_occurrence_beside_coincidences_is_found() -> None:
    text = "id 5f2a318406c9e0b1d7a4f3e2 at 10:00:00.318406 said 318406"
    assert _texts(text).find(SECRET) == ["retrieval.sqlite"]


def test_a_non_digit_secret_inside_a_hex_run_still_counts() -> None:
    assert _texts("5f2adeadbeefc9e0b1d7a4f3e2").find("deadbeef") == ["retrieval.sqlite"]
    assert _file(b"5f2adeadbeefc9e0b1d7a4f3e2").find("deadbeef") == ["files:store/x.bin"]
    assert _texts("sk-9F8E7D6C5B4A3210ABCDEF").find("9F8E7D6C") == ["retrieval.sqlite"]


def test_scannedfile_find_stays_exact_for_the_byte_scanner() -> None:
    f = ScannedFile(path=Path("x"), raw=b"5f2a318406c9e0b1d7a4f3e2", decoded=None, kind="other")
    assert f.find(SECRET.encode()) == "raw"
    assert f.find_secret(SECRET.encode()) == "raw"  # no read-back tokens: exact
    assert f.find_secret(SECRET.encode(), [b"5f2a318406c9e0b1d7a4f3e2"]) is None


def test_the_erasure_check_keeps_a_secret_another_user_holds_only_by_coincidence() -> None:
    def turn(user: str, tid: str, content: str) -> TurnEvent:
        return TurnEvent.model_validate(
            {
                "tenant_id": "acme",
                "user_id": user,
                "session_id": "s1",
                "turn_id": tid,
                "role": "user",
                "ts": "2024-05-01T10:00:00Z",
                "content": content,
            }
        )

    turns = [
        turn("u1", "t1", "The alarm code is 318406."),
        turn("u2", "t2", "Ticket 5f2a318406c9e0b1d7a4f3e2 closed at 10:00:00.318406."),
    ]
    stored = {("acme", "u2"): ["event 4402318406771925 stored"]}
    needles = erasure._needles(("acme", "u1"), turns, {("acme", "t1"): [SECRET]}, stored, [])
    assert needles.get("acme/u1: secret 1 of turn t1") == (SECRET, True)


def test_a_compressed_file_is_judged_by_its_decoded_bytes() -> None:
    # LZ4 literals are cut-up pieces of the values: in the raw bytes a piece of a
    # known id can sit beside match tokens, so it no longer spells the whole id
    fact_id = "5f2a318406c9e0b1d7a4f3e2"
    raw = b"\xf0\x13" + b"2a318406c9" + b"\x90\x04"
    decoded = (b"\x18" + fact_id.encode()) * 3
    assert _file(raw, decoded, f"fact {fact_id}").find(SECRET) == []
    # exact without a read-back: both forms count
    assert _file(raw, decoded).find(SECRET) == ["files:store/x.bin"]
    # a real secret in the decoded bytes still counts, reported as raw when it is there too
    leaked = decoded + b"\x12the code is 318406"
    assert _file(raw, leaked, f"fact {fact_id}").find(SECRET) == ["files:store/x.bin"]
    assert _file(b"\x00" * 8, leaked, f"fact {fact_id}").find(SECRET) == [
        "files:store/x.bin (decompressed)"
    ]
