"""The whole gate on real Kafka and OpenSearch: ``memgate worker`` processes (one, then two,
in one consumer group; two partitions per topic), fed LoCoMo dev turns.

* sustained turns/s: every turn produced at once, timed until the group has committed
  every message of every stage topic (the backlog drained);
* produce-to-searchable latency, p50 and p99, at 25 %, 50 % and 90 % of the one-worker
  sustained rate: turns produced at that pace; a turn is searchable when a fact whose
  ``source_turn_ids`` holds it is returned by an OpenSearch query (polled every 0.1 s,
  so the figures include the index's 1 s refresh); turns that store no fact are not
  counted;
* worker peak RSS under load (``VmHWM`` of each worker process).

    MEMGATE_KAFKA_BOOTSTRAP=127.0.0.1:19092 MEMGATE_OPENSEARCH_URL=http://127.0.0.1:19200 \\
        .venv/bin/python benchmarks/bench_pipeline.py [--turns 400] [--paced 120] \\
        [--runtime onnx-int8|numpy]

Runs only when both services are reachable; otherwise the rows say so.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import ExitStack
from pathlib import Path

import common
from common import NOT_RUN, reachable, write
from journal_fill import fill_journal
from service_cpu import Costs, Meter, phases_between

from memgate.core.events import TurnEvent
from memgate.core.settings import Settings, load_settings
from memgate.inputs import load_locomo

PARTITIONS = 2
BASE_PORT = 19171  # metrics ports of the benchmark's workers (19171, 19172)


def free(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) != 0


class Worker:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        memgate = Path(sys.executable).parent / "memgate"
        self.proc = subprocess.Popen(
            [str(memgate), "worker", "--loglevel", "warning"],
            env=env,
            stdout=log.open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.port = port = int(env["MEMGATE_METRICS_PORT"])
        deadline = time.monotonic() + 120
        while free(port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker did not start; see {log}")
            time.sleep(0.2)

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def step_seconds(self) -> dict[str, tuple[float, int]]:
        """Per stage: seconds spent in its step (``memgate_stage_latency_seconds``) and
        events, from the worker's ``/metrics``."""
        import re
        import urllib.request

        port = self.port
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()
        out: dict[str, tuple[float, int]] = {}
        pat = r'memgate_stage_latency_seconds_(sum|count)\{stage="(\w+)"\} ([0-9.e+-]+)'
        for kind, stage, value in re.findall(pat, text.decode()):
            total, n = out.get(stage, (0.0, 0))
            out[stage] = (float(value), n) if kind == "sum" else (total, int(float(value)))
        return out

    def cpu_s(self) -> float:
        """User + system CPU seconds of the worker process so far."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    #: py-spy sampling: wall clock, idle included (MEMGATE_BENCH_SPY_GIL=1: the GIL holder only)
    spy_args = ("--gil",) if os.environ.get("MEMGATE_BENCH_SPY_GIL") else ("--idle",)

    def profile(self, out: Path) -> subprocess.Popen[bytes]:
        """py-spy sampling of the worker (threads apart) until interrupted."""
        spy = Path(sys.executable).parent / "py-spy"
        return subprocess.Popen(
            [str(spy), "record", "--pid", str(self.proc.pid), *self.spy_args, "--threads",
             "-f", "raw", "-r", "50", "-o", str(out)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


BENCH_KEY = secrets.token_hex(32)  # one per benchmark run, for all its workers


def settings(run: str, data: Path, kafka: str, url: str) -> Settings:
    """This process's settings of a run; its workers' (:func:`worker_env`) share its key,
    held in memory (MEMGATE_HMAC_KEY when set): the run's data dirs are throwaway, and a
    key file made for each would be left behind in the key folder."""
    return load_settings(
        data_dir=data,
        retrieval_backend="opensearch",
        opensearch_url=url,
        opensearch_index=f"memgate-bench-{run}",
        kafka_bootstrap=kafka,
        topic_prefix=run,
        worker_id=run,
        topic_partitions=PARTITIONS,
        hmac_key=os.environ.get("MEMGATE_HMAC_KEY") or BENCH_KEY,
    )


RUNTIME = ["onnx-int8"]  # the workers' embedder runtime, set from --runtime
SETTLE = [0.0]  # seconds between a latency run's worker start and its first turn (--settle)


def worker_env(s: Settings, data: Path, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "MEMGATE_DATA_DIR": str(data),
            "MEMGATE_RETRIEVAL_BACKEND": "opensearch",
            "MEMGATE_OPENSEARCH_URL": s.opensearch_url,
            "MEMGATE_OPENSEARCH_INDEX": s.opensearch_index,
            "MEMGATE_KAFKA_BOOTSTRAP": s.kafka_bootstrap,
            "MEMGATE_TOPIC_PREFIX": s.topic_prefix,
            "MEMGATE_WORKER_ID": s.worker_id,
            "MEMGATE_METRICS_PORT": str(port),
            "MEMGATE_TOPIC_PARTITIONS": str(PARTITIONS),
            "MEMGATE_EMBEDDER_RUNTIME": RUNTIME[0],
            # workers sharing one index share one key (fact ids are keyed digests under it)
            "MEMGATE_HMAC_KEY": s.hmac_key.get_secret_value() if s.hmac_key else BENCH_KEY,
        }
    )
    return env


async def _committed_lag(s: Settings) -> int:
    from memgate.streams.app import topic_name
    from memgate.streams.lag import CommittedLag
    from memgate.streams.topology import AUDIT_TOPIC, ROUTES

    reader = CommittedLag(s, s.worker_id)
    consumed = [*(r.source for r in ROUTES), AUDIT_TOPIC]  # the dead-letter topic has no reader
    try:
        lag = await reader.read(
            [(topic_name(s, n), p) for n in consumed for p in range(PARTITIONS)]
        )
    finally:
        await reader.close()
    return sum(lag.values())


def node_stats(s: Settings) -> dict:  # type: ignore[type-arg]
    """OpenSearch's ``_nodes/stats/indices`` (the phases' times of a run)."""
    from memgate.sinks.opensearch_client import opensearch_client

    client = opensearch_client(s)
    try:
        return dict(client.nodes.stats(metric="indices"))
    finally:
        client.close()


def wait_drained(s: Settings, timeout: float = 3600) -> None:
    from aiokafka.errors import KafkaError

    deadline = time.monotonic() + timeout
    zero_since: float | None = None
    while time.monotonic() < deadline:
        try:
            lag = asyncio.run(_committed_lag(s))
        except KafkaError:
            lag = -1
        if lag == 0:
            zero_since = zero_since or time.monotonic()
            if time.monotonic() - zero_since >= 2.0:
                return
        else:
            zero_since = None
        time.sleep(0.25)
    raise SystemExit(f"not drained after {timeout:.0f} s")


class Searchable(threading.Thread):
    """Polls the index for facts and notes when each source turn first became searchable."""

    def __init__(self, s: Settings) -> None:
        super().__init__(daemon=True)
        from opensearchpy import OpenSearch

        self.client = OpenSearch(hosts=[s.opensearch_url], timeout=30)
        self.index = s.opensearch_index
        self.first_seen: dict[tuple[str, str], float] = {}
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                body = {
                    "size": 10_000,
                    "_source": ["tenant_id", "source_turn_ids"],
                    "query": {"match_all": {}},
                }
                hits = self.client.search(index=self.index, body=body)["hits"]["hits"]
            except Exception:
                hits = []
            now = time.time()  # wall clock, as the Kafka record times of --hops
            for h in hits:
                for t in h["_source"].get("source_turn_ids", []):
                    self.first_seen.setdefault((h["_source"]["tenant_id"], t), now)
            self.stopped.wait(0.1)


def produce(
    s: Settings, turns: list[TurnEvent], rate: float | None
) -> dict[tuple[str, str], float]:
    """Produce ``turns`` (all at once, or ``rate`` per second); the send time of each."""
    from aiokafka import AIOKafkaProducer

    from memgate.streams.app import ensure_topics, topic_name
    from memgate.streams.kafka_client import kafka_client_kwargs

    sent: dict[tuple[str, str], float] = {}

    async def go() -> None:
        await ensure_topics(s)
        p = AIOKafkaProducer(**kafka_client_kwargs(s), acks="all", linger_ms=5)
        await p.start()
        try:
            t0 = time.monotonic()
            for i, t in enumerate(turns):
                if rate:
                    await asyncio.sleep(max(0.0, t0 + i / rate - time.monotonic()))
                await p.send_and_wait(
                    topic_name(s, "turns"),
                    key=t.partition_key.encode(),
                    value=t.model_dump_json().encode(),
                )
                sent[(t.tenant_id, t.turn_id)] = time.time()
        finally:
            await p.stop()

    asyncio.run(go())
    return sent


def drop(s: Settings) -> None:
    from opensearchpy import OpenSearch

    c = OpenSearch(hosts=[s.opensearch_url], timeout=30)
    c.indices.delete(index=f"{s.opensearch_index}*", ignore_unavailable=True)


def one_per_user(pool: list[TurnEvent], skip: int) -> list[TurnEvent]:
    """A turn of each user of ``pool`` from its end, none of its first ``skip`` (the runs'
    turns): warm-up turns that are no replay of a timed one."""
    seen: dict[tuple[str, str], TurnEvent] = {}
    for t in reversed(pool[skip:]):
        seen.setdefault((t.tenant_id, t.user_id), t)
    return list(seen.values())


def settle_group(s: Settings, workers: list[Worker], warm: list[TurnEvent]) -> None:
    """Produce ``warm`` a few users at a time until every worker has taken a turn: the
    group has then joined and each worker holds a partition (a second worker's join, a
    rebalance, is then not inside the timed run)."""
    for i in range(0, len(warm), 4):
        produce(s, warm[i : i + 4], None)
        wait_drained(s)
        if all(w.step_seconds().get("triage", (0.0, 0))[1] > 0 for w in workers):
            return
    print(f"warning: not every worker took one of the {len(warm)} warm-up turns; timed anyway")


def sustained(
    n_workers: int,
    turns: list[TurnEvent],
    kafka: str,
    url: str,
    profile: Path | None = None,
    warm: list[TurnEvent] | None = None,
    journal_rows: int = 0,
) -> tuple[float, float, Costs]:
    """Turns/s, peak worker RSS (MiB) and the CPU each process spent during the run
    (:mod:`service_cpu`), timed from a stable group when ``warm`` turns are given
    (:func:`settle_group`); each worker's audit journal holding ``journal_rows`` rows of
    each tenant of ``turns`` first (:mod:`journal_fill`)."""
    run = f"bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp, ExitStack() as stack:
        s = settings(run, Path(tmp) / "w0", kafka, url)
        workers = []
        for i in range(n_workers):
            data = Path(tmp) / f"w{i}"
            tenants = sorted({t.tenant_id for t in turns})
            fill_journal(Settings(data_dir=data).audit_path, tenants, journal_rows)
            w = Worker(worker_env(s, data, BASE_PORT + i), Path(tmp) / f"w{i}.log")
            stack.callback(w.stop)
            workers.append(w)
        if warm:
            settle_group(s, workers, warm)
        base = [w.step_seconds() for w in workers]
        spies = [w.profile(profile / f"w{i}.txt") for i, w in enumerate(workers)] if profile else []
        meter = Meter()
        meter.start(sum(w.cpu_s() for w in workers))
        os0 = node_stats(s)
        t0 = time.monotonic()
        produce(s, turns, None)
        wait_drained(s)
        elapsed = time.monotonic() - t0 - 2.0  # wait_drained's settle time
        costs = meter.stop(sum(w.cpu_s() for w in workers), len(turns))
        print(phases_between(os0, node_stats(s), len(turns)))
        for i, w in enumerate(workers):
            steps = {
                k: (v[0] - base[i].get(k, (0.0, 0))[0], v[1] - base[i].get(k, (0.0, 0))[1])
                for k, v in w.step_seconds().items()
            }
            print(f"worker {i} step seconds (events, the timed run's): "
                  + ", ".join(f"{k} {v[0]:.2f} ({v[1]})" for k, v in steps.items()))  # fmt: skip
        for spy in spies:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=60)
        rss = max(w.peak_rss_mib() for w in workers)
        stack.callback(drop, s)
    return len(turns) / elapsed, rss, costs


def latency(
    rate: float,
    turns: list[TurnEvent],
    kafka: str,
    url: str,
    hops: bool = False,
    warm: TurnEvent | None = None,
) -> tuple[float, float, int]:
    run = f"bench-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="memgate-bench-") as tmp, ExitStack() as stack:
        s = settings(run, Path(tmp) / "w0", kafka, url)
        w = Worker(worker_env(s, Path(tmp) / "w0", BASE_PORT), Path(tmp) / "w0.log")
        stack.callback(w.stop)
        poll = Searchable(s)
        poll.start()
        time.sleep(SETTLE[0])
        if warm is not None:  # the worker has taken a turn (its group joined) before the run
            produce(s, [warm], None)
            wait_drained(s)
        sent = produce(s, turns, rate)
        wait_drained(s)
        time.sleep(2.0)  # one more refresh and poll
        poll.stopped.set()
        poll.join()
        if hops:
            import latency_hops

            hops_ = latency_hops.hop_times(s, sent, poll.first_seen)
            print(latency_hops.report(hops_, sent))
        stack.callback(drop, s)
    lat = sorted(poll.first_seen[k] - sent[k] for k in sent if k in poll.first_seen)
    if not lat:
        return float("nan"), float("nan"), 0
    p99 = lat[min(len(lat) - 1, round(0.99 * (len(lat) - 1)))]
    return statistics.median(lat), p99, len(lat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=400, help="turns for the sustained runs")
    ap.add_argument("--paced", type=int, default=120, help="turns for each latency run")
    ap.add_argument(
        "--workers", default="1,2", help="worker counts of the sustained runs (comma-separated)"
    )
    ap.add_argument(
        "--shares", default="0.25,0.5,0.9",
        help="shares of the 1-worker rate of the latency runs (comma-separated; empty: none)",
    )  # fmt: skip
    ap.add_argument(
        "--runtime", choices=["numpy", "onnx-int8"], default="onnx-int8",
        help="the workers' embedder runtime (default onnx-int8, as the in-process headline)",
    )  # fmt: skip
    ap.add_argument(
        "--rates", default="",
        help="latency runs at these turns/s instead of --shares (comma-separated)",
    )  # fmt: skip
    ap.add_argument("--hops", action="store_true", help="each latency run's time per hop")
    ap.add_argument(
        "--cold", action="store_true",
        help="each run's first turn is sent as soon as its workers start: the group join "
        "(about 1 s, a rebalance more with two workers) and the first index refresh are "
        "then in the figures. Default: a latency run starts once its worker has taken one "
        "turn of its own, a sustained run once every worker has (not counted), as workers "
        "in service have long joined their group",
    )  # fmt: skip
    ap.add_argument(
        "--settle", type=float, default=0.0,
        help="seconds between a latency run's worker start and its first turn (default 0)",
    )  # fmt: skip
    ap.add_argument("--profile", type=Path, help="py-spy (raw, wall clock) of each worker here")
    ap.add_argument(
        "--journal-rows", type=int, default=0,
        help="each worker's audit journal holds this many rows of each tenant before a "
        "sustained run (as after months in service; default 0: empty)",
    )  # fmt: skip
    args = ap.parse_args()
    RUNTIME[0] = args.runtime
    SETTLE[0] = args.settle
    counts = [int(n) for n in args.workers.split(",") if n]
    shares = [float(x) for x in args.shares.split(",") if x]
    kafka = os.environ.get("MEMGATE_KAFKA_BOOTSTRAP", "127.0.0.1:19092")
    url = os.environ.get("MEMGATE_OPENSEARCH_URL", "http://127.0.0.1:19200")
    if not (reachable(kafka) and reachable(url)):
        write(
            "pipeline", [{"what": "pipeline on Kafka + OpenSearch", "figure": NOT_RUN, "unit": ""}]
        )
        return
    convs = load_locomo(common.LOCOMO)  # looked up here: importing needs no LoCoMo file
    # turns of several conversations interleaved, so that two partitions both have work
    pool = [t for group in zip(*(c.turns for c in convs), strict=False) for t in group]
    rows = []
    rate1 = 0.0
    for n in counts:
        runs = len([r for r in args.rates.split(",") if r]) or len(shares)  # latency runs
        used = args.turns + runs * (args.paced + 1)  # the turns the timed runs take
        warm = None if args.cold else one_per_user(pool, used)
        rate, rss, costs = sustained(
            n, pool[: args.turns], kafka, url, args.profile, warm, args.journal_rows
        )
        rate1 = rate1 or rate
        cpu = costs.cpu_s["workers"]
        journal = f", journal {args.journal_rows:,} rows a tenant" if args.journal_rows else ""
        print(f"{n} worker(s): {rate:.1f} turns/s; {costs.describe()}")
        rows.append(
            {
                "what": f"pipeline sustained, {n} worker(s), {args.runtime}",
                "figure": f"{rate:.1f}",
                "unit": "turns/s",
                "note": f"{args.turns} LoCoMo dev turns, {PARTITIONS} "
                f"partitions, OpenSearch{journal}; peak worker RSS {rss:.0f} MiB; workers' CPU "
                f"{cpu:.1f} s, {args.turns / cpu:.1f} turns per CPU-second; {costs.describe()}; "
                f"load {os.getloadavg()[0]:.1f}",
            }
        )
    offset = args.turns
    paced = [(float(r), f"{float(r):.1f} turns/s") for r in args.rates.split(",") if r] or [
        (rate1 * share, f"{share:.0%} of the 1-worker rate") for share in shares
    ]
    for rate, what in paced:
        batch = pool[offset : offset + args.paced]
        offset += args.paced
        warm = None if args.cold else pool[offset]  # a turn of no batch: not a replay
        offset += 1
        p50, p99, n = latency(rate, batch, kafka, url, args.hops, warm)
        print(f"produce-to-searchable at {rate:.1f} turns/s: p50 {p50:.2f} s, p99 {p99:.2f} s "
              f"({n} turns stored a fact; load {os.getloadavg()[0]:.1f})")  # fmt: skip
        rows.append(
            {
                "what": f"produce-to-searchable at {what}",
                "figure": f"{p50:.2f} / {p99:.2f}",
                "unit": "s (p50 / p99)",
                "note": f"{rate:.1f} turns/s for {len(batch)} turns; {n} turns "
                "stored a fact; 1 worker; includes the 1 s refresh"
                + (
                    "; started with the worker (cold)"
                    if args.cold
                    else "; started once the worker took a first turn"
                ),
            }
        )
    write("pipeline", rows)


if __name__ == "__main__":
    main()
