"""Health terms and the mask of everything sensitive (split from :mod:`memgate.stages.redact`).

:func:`mask_all` is what the journal, the final check (:mod:`memgate.stages.seal`) and
any text leaving for a third-party model go through.
"""

from __future__ import annotations

import re

from memgate.stages.detectors import Detector, MaskResult

__all__ = ["HEALTH_PLACEHOLDER", "HEALTH_RE", "PLACEHOLDER_ONLY", "mask_all", "mask_health"]

# Health is a regulated category with no fixed format: a term list catches the
# common conditions, treatments and care settings in English, German, French
# and Spanish. Mentions are reduced to [HEALTH] or the fact is rejected.
_HEALTH_TERMS = (
    r"diabet\w*|cancer|tumou?r|chemo\w*|hiv|aids|hepatitis|asthma|epilep\w*|"
    r"depress\w*|anxiety disorder|bipolar|schizophreni\w*|adhd|autis\w*|ptsd|"
    r"dementia|alzheimer\w*|parkinson\w*|multiple sclerosis|arthritis|"
    r"pregnan\w*|miscarriage|abortion|std|sti|chlamydia|herpes|"
    r"antidepressants?|insulin|metformin|sertraline|prozac|xanax|adderall|"
    r"diagnos(?:ed|is)|prescri(?:bed|ption)|medication|therapist|psychiatrist|"
    r"rehab|chemotherapy|surgery|blood pressure|hypertension|"
    r"krebs|schwanger\w*|diagnose|medikament\w*|"
    r"enceinte|diabète|dépression|médicament\w*|"
    r"embarazada|diabetes|depresión|medicamento\w*"
)
HEALTH_RE = re.compile(rf"\b(?:{_HEALTH_TERMS})\b", re.IGNORECASE)
HEALTH_PLACEHOLDER = "[HEALTH]"
PLACEHOLDER_ONLY = re.compile(r"^[\s\W]*(?:\[[A-Z_]+\][\s\W]*)+$")


#: :data:`HEALTH_RE` for ASCII text lower-cased: case-sensitive, so read 2.4 times faster
#: (issue 14). Only ASCII: no term's letter has a case pair outside ASCII that ASCII text
#: could hold, so a miss here is a miss of :data:`HEALTH_RE`
#: (tests/unit/stages/test_redact_health_ascii.py)
_HEALTH_ASCII_RE = re.compile(rf"\b(?:{_HEALTH_TERMS.lower()})\b")


def mask_health(text: str) -> tuple[str, int]:
    """Reduce health mentions to a placeholder; returns the text and the count."""
    if text.isascii() and _HEALTH_ASCII_RE.search(text.lower()) is None:
        return text, 0
    return HEALTH_RE.subn(HEALTH_PLACEHOLDER, text)


def mask_all(detector: Detector, text: str) -> MaskResult:
    """Everything sensitive masked: PII, credentials, regulated formats and health terms.

    Used for the journal and before any text leaves for a third-party model.
    """
    res = detector.mask(text)
    masked, n = mask_health(res.text)
    counts = dict(res.counts)
    if n:
        counts["health"] = counts.get("health", 0) + n
    return MaskResult(text=masked, counts=counts)
