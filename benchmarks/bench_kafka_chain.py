"""The ceiling: a raw aiokafka consume-produce chain of the gate's five hops (turns ->
triaged -> extracted -> redacted -> resolved -> sink), messages of the size of a LoCoMo
turn event, acks=all, one consumer group per hop, commits every 50 messages.

    MEMGATE_KAFKA_BOOTSTRAP=127.0.0.1:19092 .venv/bin/python benchmarks/bench_kafka_chain.py

Runs only when the broker is reachable; otherwise the row says so.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid

from common import LOCOMO, NOT_RUN, reachable, write

HOPS = ["turns", "triaged", "extracted", "redacted", "resolved", "sink"]


async def chain(bootstrap: str, n: int, payload: bytes) -> float:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    run = uuid.uuid4().hex[:8]
    names = [f"bench-{run}.{h}" for h in HOPS]
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(t, 1, 1) for t in names])
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=5)
    await producer.start()
    done = asyncio.Event()

    async def hop(i: int) -> None:
        c = AIOKafkaConsumer(names[i], bootstrap_servers=bootstrap, group_id=f"{names[i]}.g",
                             auto_offset_reset="earliest", enable_auto_commit=False)
        await c.start()
        seen = 0
        try:
            while seen < n:
                batch = await c.getmany(timeout_ms=500, max_records=500)
                for msgs in batch.values():
                    futs = [await producer.send(names[i + 1], m.value, key=m.key) for m in msgs]
                    await asyncio.gather(*futs)
                    seen += len(msgs)
                if batch:
                    await c.commit()
        finally:
            await c.stop()

    async def sink() -> None:
        c = AIOKafkaConsumer(names[-1], bootstrap_servers=bootstrap, group_id=f"{names[-1]}.g",
                             auto_offset_reset="earliest")
        await c.start()
        seen = 0
        try:
            while seen < n:
                batch = await c.getmany(timeout_ms=500, max_records=500)
                seen += sum(len(v) for v in batch.values())
        finally:
            await c.stop()
            done.set()

    tasks = [asyncio.create_task(hop(i)) for i in range(len(HOPS) - 1)]
    tasks.append(asyncio.create_task(sink()))
    t0 = time.perf_counter()
    futs = [await producer.send(names[0], payload, key=b"acme/u1") for _ in range(n)]
    await asyncio.gather(*futs)
    await done.wait()
    elapsed = time.perf_counter() - t0
    await asyncio.gather(*tasks)
    await producer.stop()
    await admin.delete_topics(names)
    await admin.close()
    return n / elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=5000)
    a = ap.parse_args()
    bootstrap = os.environ.get("MEMGATE_KAFKA_BOOTSTRAP", "127.0.0.1:19092")
    what = "raw aiokafka five-hop chain (ceiling)"
    if not reachable(bootstrap):
        write("kafka-chain", [{"what": what, "figure": NOT_RUN, "unit": "",
                               "note": f"broker {bootstrap}"}])
        return
    from memgate.inputs import ReadErrors, read_turns

    turn = next(iter(read_turns(LOCOMO, ReadErrors())))
    payload = turn.model_dump_json().encode()
    rate = asyncio.run(chain(bootstrap, a.messages, payload))
    write("kafka-chain", [{"what": what, "figure": f"{rate:.0f}", "unit": "messages/s end to end",
                           "note": f"{a.messages} messages of {len(payload)} bytes"}])


if __name__ == "__main__":
    main()
