"""Trusted sources: the syntax of ``tenant:source`` entries and of a turn's ``metadata.source``.

The settings check the entries when they are read; the write policy
(:mod:`memgate.stages.policy`) decides what a listed source changes.

>>> sorted(parse_trusted_sources(["acme:sor", " *:crm "]))
['*:crm', 'acme:sor']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: A source name: what ``metadata.source`` must look like to be matched at all.
SOURCE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._\-]{0,63}")
#: A tenant id as :mod:`memgate.core.events` allows it; a source has no ``:``, so an entry
#: splits at its last one.
TENANT_RE = re.compile(r"\*|[A-Za-z0-9][A-Za-z0-9._:@+\-]{0,199}")


def parse_trusted_sources(entries: Iterable[str]) -> frozenset[str]:
    """Check ``tenant:source`` / ``*:source`` entries; a malformed one is a ValueError."""
    out: set[str] = set()
    for raw in entries:
        entry = str(raw).strip()
        tenant, sep, source = entry.rpartition(":")
        if not (sep and TENANT_RE.fullmatch(tenant) and SOURCE_RE.fullmatch(source)):
            raise ValueError(
                f"trusted source {entry!r} is not 'tenant:source' or '*:source' "
                "(a source is 1-64 letters, digits, '.', '_' or '-')"
            )
        out.add(f"{tenant}:{source}")
    return frozenset(out)
