"""The leak check searches what a store keeps as text, not the decimal digits of vectors.

A fact searched with its context carries a second vector (``search_embedding``); its
floats, printed, hold every six-digit run by chance, so a six-digit PIN was "found" in
``retrieval.facts`` without being stored anywhere (issue 9: the hybrid extractor stores
more facts with a context, and the development leak check failed on two PINs).
"""

from __future__ import annotations

import re

from memgate.core.embedding import HashingEmbedder
from memgate.core.events import TurnEvent
from memgate.core.settings import Settings
from memgate.evaluation import leaks
from memgate.evaluation.common import Workspace


def test_digits_of_a_vector_are_not_a_leak() -> None:
    turn = TurnEvent.model_validate(
        {"tenant_id": "acme", "user_id": "u1", "session_id": "s1", "turn_id": "t1",
         "role": "user", "ts": "2024-05-01T10:00:00Z",
         "content": "Long week, sorry. Our staging cluster runs on Hetzner."}
    )
    with Workspace(Settings(extractor="hybrid"), HashingEmbedder()) as ws:
        ws.ingest([turn])
        facts = ws.facts()
        with_vector = [f for f in facts if f.search_embedding]
        assert with_vector, "the test needs a fact searched with its context"
        fact = with_vector[0]
        assert fact.search_embedding is not None
        kept_text = " ".join(
            [fact.subject, fact.predicate, fact.value, fact.text, fact.context, fact.key]
        )
        digits = "".join(re.findall(r"\d{6,}", " ".join(map(repr, fact.search_embedding))))
        needle = next(
            digits[i:i + 6] for i in range(len(digits) - 5)
            if digits[i:i + 6] not in kept_text and digits[i:i + 6] not in fact.model_dump_json(
                exclude={"embedding", "search_embedding"}
            )
        )
        hay = leaks.scan_workspace(ws)
        assert "retrieval.facts" not in hay.find(needle)
        # the text fields themselves are still searched
        assert "retrieval.facts" in hay.find("Hetzner")
