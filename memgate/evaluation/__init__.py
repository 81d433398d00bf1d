"""The evaluation harness behind ``memgate eval``.

Three suites, each a JSONL corpus (the bundled development corpus lives in
``memgate/data/eval/``) scored on a fresh gate in a temporary folder:

* :mod:`memgate.evaluation.labelled`: precision, recall and F1 of stored
  versus labelled "keep", overall and by kind, language and domain;
* :mod:`memgate.evaluation.leaks`: every store searched for every raw
  secret after ingestion (leaks must be 0), every byte of every file
  included (ClickHouse parts decoded: :mod:`memgate.evaluation.bytescan`),
  the share of benign look-alikes that survive redaction, and an erasure
  (:mod:`memgate.evaluation.erasure`): users forgotten, then nothing of
  theirs may be found (residues must be 0);
* :mod:`memgate.evaluation.scenarios`: multi-turn histories with checks
  (newer fact wins, as-of queries, tenant isolation, repeats, retraction,
  confirmation, save-after-success, redaction).

Targets for the offline rule extractor with the ``balanced`` preset are in
:data:`TARGETS`.
"""

from __future__ import annotations

from memgate.evaluation.common import BUNDLED_FILES, Confusion, CorpusError, Workspace

#: What the offline rule extractor must reach with the ``balanced`` preset.
TARGETS: dict[str, float] = {
    "labelled_f1": 0.85,
    "leaks": 0,
    "erasure_residues": 0,
    "benign_share": 0.95,
    "scenarios_pass_share": 1.0,
}

__all__ = ["BUNDLED_FILES", "TARGETS", "Confusion", "CorpusError", "Workspace"]
