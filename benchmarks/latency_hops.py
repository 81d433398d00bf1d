"""Where a paced turn's produce-to-searchable time goes, hop by hop.

After a latency run of ``bench_pipeline.py`` (``--hops``), every stage topic on the way to
the index is read from its start: the first record of a turn on each (its Kafka
``CreateTime``, set when the worker handed the record to its producer) marks when the
stage before it was done with the turn. For each turn that became searchable:

* ``triage``: produced on ``turns`` to its triaged turn on ``triaged`` (the input agent's
  wait for a batch, its queue, the ledger query and the triage step);
* ``extract``: ``triaged`` to its first candidate on ``extracted``;
* ``redact``: ``extracted`` to ``redacted``;
* ``dedupe``: ``redacted`` to its first resolution on ``resolved`` (the dedupe agent's
  batch, its read-ahead, the step; the fact's ``_bulk`` write follows the resolution);
* ``index``: ``resolved`` to the first poll that found the fact (the ``_bulk`` write, the
  index's 1 s refresh and the 0.1 s poll).

Times are wall-clock (ms precision on Kafka); one process on one box, one clock.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
from collections.abc import Iterator
from typing import Any

from memgate.core.settings import Settings

#: The topics a turn crosses on its way to the index, in order, and the hop each one ends.
HOPS = (("triaged", "triage"), ("extracted", "extract"), ("redacted", "redact"),
        ("resolved", "dedupe"))  # fmt: skip

Key = tuple[str, str]


def _turn_keys(doc: Any, tenant: str | None = None) -> Iterator[Key]:
    """The (tenant, turn id) pairs a stage message names: its ``turn_id`` and
    ``source_turn_ids`` fields, at any depth."""
    if isinstance(doc, dict):
        tenant = doc.get("tenant_id", tenant)
        if tenant is not None:
            if isinstance(doc.get("turn_id"), str):
                yield (tenant, doc["turn_id"])
            for t in doc.get("source_turn_ids") or ():
                yield (tenant, t)
        for v in doc.values():
            yield from _turn_keys(v, tenant)
    elif isinstance(doc, list):
        for v in doc:
            yield from _turn_keys(v, tenant)


async def _first_seen(s: Settings, topic: str) -> dict[Key, float]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    from memgate.streams.app import topic_name
    from memgate.streams.kafka_client import kafka_client_kwargs

    name = topic_name(s, topic)
    c = AIOKafkaConsumer(**kafka_client_kwargs(s), enable_auto_commit=False)
    await c.start()
    out: dict[Key, float] = {}
    try:
        tps = [TopicPartition(name, p) for p in range(s.topic_partitions)]
        c.assign(tps)
        await c.seek_to_beginning(*tps)
        end = await c.end_offsets(tps)
        left = {tp for tp in tps if end[tp] > 0}
        while left:
            got = await c.getmany(*left, timeout_ms=1000)
            for tp, records in got.items():
                for r in records:
                    for k in set(_turn_keys(json.loads(r.value))):
                        out.setdefault(k, r.timestamp / 1000)
                    if r.offset + 1 >= end[tp]:
                        left.discard(tp)
    finally:
        await c.stop()
    return out


def hop_times(
    s: Settings, sent: dict[Key, float], seen: dict[Key, float]
) -> dict[Key, list[float]]:
    """Per searchable turn: the seconds of each hop (``HOPS``, then ``index``); ``sent`` and
    ``seen`` in wall-clock seconds."""
    marks = {topic: asyncio.run(_first_seen(s, topic)) for topic, _ in HOPS}
    out: dict[Key, list[float]] = {}
    for k, t_seen in seen.items():
        if k not in sent or any(k not in marks[t] for t, _ in HOPS):
            continue
        times = [sent[k], *(marks[t][k] for t, _ in HOPS), t_seen]
        out[k] = [b - a for a, b in itertools.pairwise(times)]
    return out


def report(hops: dict[Key, list[float]], sent_at: dict[Key, float]) -> str:
    """Each hop's p50 / p99 / max, and the hops of the three slowest turns."""
    if not hops:
        return "hops: no searchable turn"
    names = [h for _, h in HOPS] + ["index"]
    rows = list(hops.values())

    def pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]

    lines = [f"hops of {len(rows)} turns (s, p50 / p99 / max):"]
    for i, name in enumerate(names):
        xs = [r[i] for r in rows]
        lines.append(
            f"  {name:8} {statistics.median(xs):.3f} / {pct(xs, 0.99):.3f} / {max(xs):.3f}"
        )
    for r in sorted(rows, key=sum, reverse=True)[:3]:
        lines.append(
            f"  slow: total {sum(r):.3f} = "
            + " + ".join(f"{n} {x:.3f}" for n, x in zip(names, r, strict=True))
        )
    order = sorted(hops.items(), key=lambda kv: sent_at.get(kv[0], 0.0))
    lines.append("  in send order (s, triage+extract+redact+dedupe | index): " + " ".join(
        f"{sum(r[:-1]):.2f}|{r[-1]:.2f}" for _, r in order))  # fmt: skip
    return "\n".join(lines)
