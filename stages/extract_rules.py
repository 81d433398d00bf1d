"""The whole rule table of the rule extractor in priority order, indexed by trigger token."""

from __future__ import annotations

from memgate.stages.extract_rule_kit import _Rule
from memgate.stages.extract_rules_a import _RULES_A
from memgate.stages.extract_rules_b import _RULES_B

_RULES: tuple[_Rule, ...] = (*_RULES_A, *_RULES_B)

_RULE_INDEX: dict[str, tuple[int, ...]] = {}
for _i, _rule in enumerate(_RULES):
    for _t in _rule.triggers:
        _RULE_INDEX[_t] = (*_RULE_INDEX.get(_t, ()), _i)
_ALWAYS: tuple[int, ...] = tuple(i for i, r in enumerate(_RULES) if not r.triggers)
# "not on Jenkins anymore, now it's GitHub Actions": a switch, read by its own rules
_NOT_ANYMORE_FIX_RE = next(r.pattern for r in _RULES if r.name == "not_anymore")
_NO_LONGER_FIX_RE = next(r.pattern for r in _RULES if r.name == "no_longer_now")
