"""A burst of one user against the other users of its partition, through the worker's agent
bodies on topics in memory (no services): the other users' wait and the burst's throughput,
with per-user fairness (``fair_turns_per_s``, ``fair_burst``) and without.

    .venv/bin/python benchmarks/bench_burst.py [--turns 100000] [--rate 200] [--burst 100]
        [--others-per-s 5] [--baseline-turns 5000]

One event loop runs every agent as a task, as one ``memgate worker`` process does: the
input agent (the gate), the deferred agent, the four stage agents after triage and the
audit agent (up to 500 rows at a time). The topics are asyncio queues (a send costs nothing:
the broker's latency is not measured). At t=0 the burst's turns are all on the input
topic; meanwhile ``--other-users`` other users send ``--others-per-s`` turns per second in all, each
of which yields one candidate. A turn's wait: from its send to the end of the persist
step of its resolution.

Cheap settings, so that 100k turns run in minutes: the rule extractor and the hashing
embedder on the embedded SQLite index; the audit store is a list in memory whose journal
answers the replay check (a chDB lookup per turn costs ~40 ms on the shared machine).
The burst is what a client in a loop sends: nine turns in ten are filler or questions
that triage drops, the tenth one of five fact statements, again and again, that goes
through every stage (dedupe finds it: ``DUPLICATE``). Statements that supersede one
another (``I live in city number k``, k changing) would add a fact row each time, and
dedupe's cost grows with a user's rows (15 ms per candidate at 300 rows, 120 ms at
1,500 on this machine): ``c`` in the README's bound is then no constant, and the stages'
backlog cap (``fair_max_backlog``) is what keeps the other users' wait bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from common import write

from memgate.backends import build_pipeline
from memgate.core.embedding import HashingEmbedder
from memgate.core.events import AuditEvent, JournalRecord, Resolution, TurnEvent
from memgate.core.settings import Settings, load_settings
from memgate.sinks.embedded import EmbeddedIndex
from memgate.streams.app import AUDIT_BATCH, Origin, Worker
from memgate.streams.fairness import FairGate
from memgate.streams.metrics import Metrics
from memgate.streams.topology import AUDIT_TOPIC, DEFERRED_TOPIC, ROUTES, TOPIC_NAMES

KEY = "bench-burst-hmac-key-0123456789abcdef012"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
BURSTER = "acme/mallory"
FILLER = (
    "ok thanks",
    "What time is it?",
    "ok",
    "thanks!",
    "Can you explain that again?",
    "ok thanks",
    "What is the weather?",
    "great",
    "thanks, got it!",
)
STATEMENTS = (
    "I use Neovim as my editor.",
    "We deploy with Helm charts.",
    "I live in Lisbon.",
    "My favourite drink is green tea.",
    "I prefer Python for scripting.",
)


@dataclass
class MemoryJournal:
    """The audit store: rows in memory; its journal answers the replay check."""

    rows: int = 0
    journal: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)

    def write(self, records: Sequence[AuditEvent]) -> None:
        self.rows += len(records)
        for r in records:
            if isinstance(r, JournalRecord):
                self.journal[(r.tenant_id, r.turn_id)] = (r.user_id, r.content_hmac)

    def seen_turns(self, tenant_id: str, turn_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        return {t: self.journal[(tenant_id, t)] for t in turn_ids if (tenant_id, t) in self.journal}

    def query(self, sql: str, parameters: Any = None) -> tuple[list[str], list[Any]]:
        raise NotImplementedError

    def close(self) -> None:
        return None


class Queues:
    """The topics: one asyncio queue each, offsets counted."""

    def __init__(self) -> None:
        self.q: dict[str, asyncio.Queue[tuple[bytes, bytes, int]]] = {
            n: asyncio.Queue() for n in TOPIC_NAMES
        }
        self.written = dict.fromkeys(TOPIC_NAMES, 0)

    async def send(self, name: str, key: str, payload: bytes) -> None:
        self.q[name].put_nowait((key.encode(), payload, self.written[name]))
        self.written[name] += 1

    async def enqueue(self, name: str, key: str, payload: bytes) -> Any:
        offset = self.written[name]
        await self.send(name, key, payload)

        async def acked() -> int:
            return offset

        return acked()

    async def take(self, name: str) -> tuple[bytes, Origin]:
        key, raw, off = await self.q[name].get()
        return raw, Origin(f"memgate.{name}", 0, off, key)


def turn(user: str, i: int, text: str) -> TurnEvent:
    return TurnEvent(tenant_id="acme", user_id=user, session_id="s1", turn_id=f"{user}-{i}",
                     role="user", content=text, ts=T0 + timedelta(milliseconds=i))  # fmt: skip


def bench_settings(data_dir: Path, **overrides: Any) -> Settings:
    """The settings of a run: a throwaway data dir keyed by :data:`KEY` (no key file)."""
    return load_settings(data_dir=data_dir, embedder="hashing", hmac_key=KEY, **overrides)


async def run(
    n: int, rate: float, burst: int, others_per_s: float, other_users: int, max_backlog: int
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as d:
        s = bench_settings(Path(d), fair_turns_per_s=rate, fair_burst=burst)
        embedder = HashingEmbedder()
        retrieval = EmbeddedIndex(Path(d) / "retrieval.sqlite3", dim=embedder.dim)
        audit = MemoryJournal()
        topics = Queues()

        def backlog() -> int:  # what waits in the stages after triage (on Kafka: their lag)
            return sum(topics.q[r.source].qsize() for r in ROUTES[1:])

        gate = FairGate(rate, burst, backlog=backlog, max_backlog=max_backlog)
        worker = Worker(s, build_pipeline(s, embedder), retrieval, audit,  # type: ignore[arg-type]
                        Metrics(), gate=gate)  # fmt: skip
        worker.ledger = audit
        sent: dict[str, float] = {}
        done: dict[str, float] = {}
        pending: dict[str, list[str]] = {}
        burst_done: list[float] = []
        divert_s = [0.0]

        async def input_agent() -> None:
            while True:
                raw, origin = await topics.take("turns")
                t0 = time.perf_counter()
                later = await worker.take_turn(raw, origin, topics.send, topics.enqueue)
                if later is not None:
                    await later
                    divert_s[0] += time.perf_counter() - t0
                elif origin.key == BURSTER.encode():
                    burst_done.append(time.perf_counter())
                await asyncio.sleep(0)

        async def deferred_agent() -> None:
            while True:
                raw, origin = await topics.take(DEFERRED_TOPIC)
                await worker.take_deferred(raw, origin, topics.send)
                burst_done.append(time.perf_counter())

        async def stage_agent(i: int) -> None:
            route = ROUTES[i]
            while True:
                raw, origin = await topics.take(route.source)
                await worker.handle(route, raw, origin, topics.send)
                if i == len(ROUTES) - 1 and origin.key != BURSTER.encode():
                    # each of their turns yields one candidate, hence one resolution, and a
                    # user's turns pass the stages in order: this is its oldest pending turn
                    user = Resolution.model_validate_json(raw).user_id
                    if pending.get(user):
                        done[pending[user].pop(0)] = time.perf_counter()
                await asyncio.sleep(0)

        async def audit_agent() -> None:
            while True:
                batch = [await topics.take(AUDIT_TOPIC)]
                while len(batch) < AUDIT_BATCH and not topics.q[AUDIT_TOPIC].empty():
                    batch.append(await topics.take(AUDIT_TOPIC))
                await worker.write_audit(batch, topics.send, lambda i: None)
                await asyncio.sleep(0)

        async def others() -> None:
            i = 0
            while len(burst_done) < n:
                who = f"user{i % other_users}"
                t = turn(who, i, f"I prefer tea number {i} in the morning.")
                sent[t.turn_id] = time.perf_counter()
                pending.setdefault(who, []).append(t.turn_id)
                await topics.send("turns", t.partition_key, t.model_dump_json().encode())
                i += 1
                await asyncio.sleep(1.0 / others_per_s)

        for i in range(n):
            # a client in a loop: nine turns in ten filler, the tenth one of five statements
            said = FILLER[i % 10] if i % 10 < 9 else STATEMENTS[(i // 10) % len(STATEMENTS)]
            t = turn("mallory", i, said)
            await topics.send("turns", t.partition_key, t.model_dump_json().encode())
        start = time.perf_counter()
        tasks = [asyncio.ensure_future(c) for c in (
            input_agent(), deferred_agent(), audit_agent(), others(),
            *(stage_agent(i) for i in range(1, len(ROUTES))),
        )]  # fmt: skip
        shown, finished = 0, 0.0
        while len(burst_done) < n or len(done) < len(sent):
            await asyncio.sleep(0.05)
            for task in tasks:
                if task.done():
                    task.result()  # an agent that died: its error, not a hang
            if len(burst_done) >= n:
                finished = finished or time.perf_counter()
                if time.perf_counter() - finished > 60:
                    print(
                        f"  {len(sent) - len(done)} turns of others not done after 60 s",
                        file=sys.stderr,
                        flush=True,
                    )
                    break
            if len(burst_done) >= shown + n // 10:
                shown = len(burst_done)
                print(
                    f"  {shown}/{n} burst turns, {time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
        elapsed = max(burst_done) - start
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        retrieval.close()
    waits = sorted(done[t] - sent[t] for t in sent if t in done)
    if not waits:
        raise SystemExit("no turn of the other users was done: nothing to report")
    q = statistics.quantiles(waits, n=100, method="inclusive") if len(waits) > 1 else waits * 99
    diverted = worker.metrics.turns_deferred._value.get()
    return {
        "others": len(waits),
        "p50": q[49],
        "p99": q[98],
        "max": waits[-1],
        "throughput": n / elapsed,
        "elapsed": elapsed,
        "divert_us": 1e6 * divert_s[0] / diverted if diverted else 0.0,
        "diverted": diverted,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=100_000)
    ap.add_argument("--rate", type=float, default=200.0)
    ap.add_argument("--burst", type=int, default=100)
    ap.add_argument("--others-per-s", type=float, default=5.0)
    ap.add_argument("--other-users", type=int, default=500)
    ap.add_argument("--max-backlog", type=int, default=500, help="fair_max_backlog")
    ap.add_argument(
        "--baseline-turns",
        type=int,
        default=5_000,
        help="the same burst without fairness (0: skip)",
    )
    a = ap.parse_args()
    fair = asyncio.run(run(a.turns, a.rate, a.burst, a.others_per_s, a.other_users, a.max_backlog))
    setting = f"{a.turns} turns, rate {a.rate:g}/s, burst {a.burst}, backlog {a.max_backlog}"
    rows = [
        {
            "what": f"others' wait p50 ({setting})",
            "figure": round(fair["p50"], 3),
            "unit": "s",
            "note": f"{fair['others']} turns of {a.other_users} other users",
        },
        {
            "what": f"others' wait p99 ({setting})",
            "figure": round(fair["p99"], 3),
            "unit": "s",
            "note": f"max {fair['max']:.3f} s",
        },
        {
            "what": f"burst throughput ({setting})",
            "figure": round(fair["throughput"], 1),
            "unit": "turns/s",
            "note": f"{fair['elapsed']:.1f} s for the burst",
        },
        {
            "what": "diverting one turn to the deferred topic",
            "figure": round(fair["divert_us"], 1),
            "unit": "us",
            "note": f"{fair['diverted']:.0f} turns diverted (in memory: no broker)",
        },
    ]
    if a.baseline_turns:
        base = asyncio.run(run(a.baseline_turns, 0.0, a.burst, a.others_per_s, a.other_users, 0))
        what = f"{a.baseline_turns} turns, no fairness"
        rows += [
            {"what": f"others' wait p50 ({what})", "figure": round(base["p50"], 3), "unit": "s"},
            {
                "what": f"others' wait p99 ({what})",
                "figure": round(base["p99"], 3),
                "unit": "s",
                "note": f"max {base['max']:.3f} s",
            },
            {
                "what": f"burst throughput ({what})",
                "figure": round(base["throughput"], 1),
                "unit": "turns/s",
            },
        ]
    write("burst", rows)


if __name__ == "__main__":
    main()
