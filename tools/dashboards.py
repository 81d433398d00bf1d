"""Generate the Grafana dashboards in dashboards/ from code: `make dashboards`.

Three dashboards, written with grafana-foundation-sdk (the `dev` extra; its
version matches the Grafana the compose file runs, 11.6):

* memgate-pipeline.json: pipeline health (Prometheus);
* memgate-quality.json: memory quality (Prometheus);
* memgate-audit.json: the audit store (ClickHouse, grafana-clickhouse-datasource).

Every panel takes its data source from the dashboard's datasource variable and
its series from the job, instance and stage variables; every panel has a
description. tests/unit/test_dashboards.py checks that the committed JSON is
what this file writes, so edit this file, never the JSON.

    .venv/bin/python tools/dashboards.py            # write dashboards/*.json
    .venv/bin/python tools/dashboards.py --check    # exit 1 if they differ
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from grafana_foundation_sdk.builders import common as cb
from grafana_foundation_sdk.builders import dashboard as db
from grafana_foundation_sdk.builders import prometheus, stat, table, timeseries
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.cog import variants as cogvariants
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as dm

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "dashboards"

PROM = dm.DataSourceRef(type_val="prometheus", uid="${datasource}")
CH = dm.DataSourceRef(type_val="grafana-clickhouse-datasource", uid="${datasource}")
#: The series every Prometheus panel reads: the dashboard's job and instance variables.
SEL = 'job=~"$job", instance=~"$instance"'
STAGE = f'{SEL}, stage=~"$stage"'
RATE = "$__rate_interval"


# ------------------------------------------------------------------ variables


def _prom_variables(d: db.Dashboard) -> db.Dashboard:
    all_opt = dm.VariableOption(selected=True, text="All", value="$__all")
    return (
        d.with_variable(
            db.DatasourceVariable("datasource")
            .label("Data source")
            .type("prometheus")
            .description("The Prometheus that scrapes the memgate workers.")
        )
        .with_variable(
            db.QueryVariable("job")
            .label("Job")
            .datasource(PROM)
            .query("label_values(memgate_turns_ingested_total, job)")
            .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
            .description("Prometheus job of the memgate workers (memgate in prometheus.yml).")
        )
        .with_variable(
            db.QueryVariable("instance")
            .label("Instance")
            .datasource(PROM)
            .query('label_values(memgate_turns_ingested_total{job=~"$job"}, instance)')
            .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
            .multi(True)
            .include_all(True)
            .all_value(".*")
            .current(all_opt)
            .description("One worker (host:port), several, or all of them.")
        )
        .with_variable(
            db.QueryVariable("stage")
            .label("Stage")
            .datasource(PROM)
            .query(f"label_values(memgate_events_in_total{{{SEL}}}, stage)")
            .refresh(dm.VariableRefresh.ON_TIME_RANGE_CHANGED)
            .multi(True)
            .include_all(True)
            .all_value(".*")
            .current(all_opt)
            .description("Gate stages: triage, extract, redact, dedupe, persist.")
        )
    )


# ------------------------------------------------------------------ panels


def _q(expr: str, legend: str = "", ref: str = "A") -> prometheus.Dataquery:
    q = prometheus.Dataquery().expr(expr).ref_id(ref).datasource(PROM)
    return q.legend_format(legend) if legend else q


def _thresholds(*steps: tuple[float | None, str]) -> db.ThresholdsConfig:
    return (
        db.ThresholdsConfig()
        .mode(dm.ThresholdsMode.ABSOLUTE)
        .steps([dm.Threshold(value=v, color=c) for v, c in steps])
    )


def _stat(
    title: str, description: str, expr: str, unit: str, steps: list[tuple[float | None, str]]
) -> stat.Panel:
    return (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(PROM)
        .with_target(_q(expr))
        .unit(unit)
        .thresholds(_thresholds(*steps))
        .color_mode(common.BigValueColorMode.BACKGROUND)
        .graph_mode(common.BigValueGraphMode.AREA)
        .reduce_options(cb.ReduceDataOptions().calcs(["lastNotNull"]))
        .height(4)
        .span(4)
    )


#: Facts stored per turn over the range: the denominator is filtered (> 0), so an idle
#: pipeline shows no value instead of a ratio over a clamped 1e-9 (8.6e8 after a run).
WRITE_AMPLIFICATION = (
    f"sum(rate(memgate_facts_written_total{{{SEL}}}[{RATE}])) "
    f"/ (sum(rate(memgate_turns_ingested_total{{{SEL}}}[{RATE}])) > 0)"
)


def _stat_row(d: db.Dashboard) -> db.Dashboard:
    d = d.with_row(db.Row("At a glance"))
    stats = [
        _stat(
            "Consumer lag",
            "Messages not yet consumed, summed over the stage topics and partitions of the "
            "selected workers (memgate_consumer_lag). Amber over 1,000, red over 10,000.",
            f"sum(memgate_consumer_lag{{{STAGE}}})",
            "short",
            [(None, "green"), (1000, "orange"), (10000, "red")],
        ),
        _stat(
            "Dead letters (1 h)",
            "Events sent to the dead-letter topic in the last hour (0 when none). Any is red: "
            "read the dead-letter topic (README, dead letters).",
            f"sum(increase(memgate_dead_letters_total{{{SEL}}}[1h])) or on() vector(0)",
            "short",
            [(None, "green"), (1, "red")],
        ),
        _stat(
            "Write amplification",
            "Fact rows stored per turn ingested, over the range's rate window (no value "
            "while no turn arrives). Normal 0.05 to 0.4; the alert band is 0.02 to 0.6 "
            "(alert: MemgateWriteAmplificationOutOfBand).",
            WRITE_AMPLIFICATION,
            "short",
            [(None, "orange"), (0.02, "green"), (0.6, "red")],
        ),
        _stat(
            "Stage latency p99",
            "99th percentile of one event's processing time, selected stages together. "
            "Objective 0.5 s (2.5 s for extract; alert: MemgateStageLatencyHigh).",
            "histogram_quantile(0.99, sum by (le) "
            f"(rate(memgate_stage_latency_seconds_bucket{{{STAGE}}}[{RATE}])))",
            "s",
            [(None, "green"), (0.5, "orange"), (2.5, "red")],
        ),
        _stat(
            "Served-fact age p50",
            "Median age (since last seen) of the facts search returned in the last hour; "
            "no value while nothing is searched. Amber over 30 days, red over 180.",
            "histogram_quantile(0.5, sum by (le) "
            f"(rate(memgate_served_fact_age_seconds_bucket{{{SEL}}}[1h])))",
            "s",
            [(None, "green"), (30 * 86400, "orange"), (180 * 86400, "red")],
        ),
    ]
    for s in stats:
        d = d.with_panel(s)
    return d


def _series(
    title: str, description: str, unit: str, *targets: prometheus.Dataquery
) -> timeseries.Panel:
    p = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(PROM)
        .unit(unit)
        .height(8)
        .span(12)
    )
    for t in targets:
        p = p.with_target(t)
    return p


def pipeline() -> db.Dashboard:
    d = (
        db.Dashboard("memgate: pipeline health")
        .uid("memgate-pipeline")
        .description("Throughput, drops, latency, lag and failures of the memgate workers.")
        .tags(["memgate"])
        .time("now-1h", "now")
        .refresh("30s")
    )
    d = _stat_row(_prom_variables(d)).with_row(db.Row("Flow"))
    panels = [
        _series(
            "Turns in, facts out",
            "Turns entering the gate and fact rows stored (by action), per second.",
            "ops",
            _q(f"sum(rate(memgate_turns_ingested_total{{{SEL}}}[{RATE}]))", "turns", "A"),
            _q(
                f"sum by (action) (rate(memgate_facts_written_total{{{SEL}}}[{RATE}]))",
                "facts {{action}}",
                "B",
            ),
        ),
        _series(
            "Events per stage",
            "Events each selected stage consumed (in) and passed on (out), per second.",
            "ops",
            _q(
                f"sum by (stage) (rate(memgate_events_in_total{{{STAGE}}}[{RATE}]))",
                "in {{stage}}",
            ),
            _q(
                f"sum by (stage) (rate(memgate_events_out_total{{{STAGE}}}[{RATE}]))",
                "out {{stage}}",
                "B",
            ),
        ),
        _series(
            "Drops by stage and reason",
            "Events a stage dropped or rejected, by reason, per second (triage filler, "
            "redact rejections, dedupe duplicates...).",
            "ops",
            _q(
                "sum by (stage, reason) "
                f"(rate(memgate_events_dropped_total{{{STAGE}}}[{RATE}]))",
                "{{stage}}: {{reason}}",
            ),
        ),
        _series(
            "Stage latency p50 and p99",
            "Processing time of one event per stage: median and 99th percentile.",
            "s",
            _q(
                "histogram_quantile(0.5, sum by (le, stage) "
                f"(rate(memgate_stage_latency_seconds_bucket{{{STAGE}}}[{RATE}])))",
                "p50 {{stage}}",
            ),
            _q(
                "histogram_quantile(0.99, sum by (le, stage) "
                f"(rate(memgate_stage_latency_seconds_bucket{{{STAGE}}}[{RATE}])))",
                "p99 {{stage}}",
                "B",
            ),
        ),
        _series(
            "Consumer lag per stage",
            "Messages not yet consumed per stage topic (summed over partitions).",
            "short",
            _q(f"sum by (stage) (memgate_consumer_lag{{{STAGE}}})", "{{stage}}"),
        ),
        _series(
            "Dead letters and store retries",
            "Events dead-lettered (by source and reason) and retried store writes (by store), "
            "per second; a flat 0 line when there are none.",
            "ops",
            _q(
                "sum by (source, reason) "
                f"(rate(memgate_dead_letters_total{{{SEL}}}[{RATE}])) or on() vector(0)",
                "dead letter {{source}}: {{reason}}",
            ),
            _q(
                f"sum by (store) (rate(memgate_store_retries_total{{{SEL}}}[{RATE}])) "
                "or on() vector(0)",
                "retry {{store}}",
                "B",
            ),
        ),
    ]
    for p in panels:
        d = d.with_panel(p)
    return _http_row(d)


def _http_row(d: db.Dashboard) -> db.Dashboard:
    """``memgate serve``: requests, errors and latency by route template (a flat 0 line
    where no HTTP service is scraped: the workers serve no routes)."""
    d = d.with_row(db.Row("HTTP service (memgate serve)"))
    http = "memgate_http_requests_total"
    d = d.with_panel(
        _series(
            "HTTP requests and server errors",
            "Requests of memgate serve per second by route template and status class "
            "(unmatched: no route), and the 5xx answers by route; a flat 0 line when no "
            "HTTP service is scraped.",
            "ops",
            _q(
                f"sum by (route, status) (rate({http}{{{SEL}}}[{RATE}])) or on() vector(0)",
                "{{route}} {{status}}",
            ),
            _q(
                f'sum by (route) (rate({http}{{{SEL}, status="5xx"}}[{RATE}])) '
                "or on() vector(0)",
                "5xx {{route}}",
                "B",
            ),
        )
    )
    return d.with_panel(
        _series(
            "HTTP latency p50 and p99",
            "Time memgate serve took to answer a request, by route template: median and "
            "99th percentile; a flat 0 line when no HTTP service is scraped.",
            "s",
            _q(
                "histogram_quantile(0.5, sum by (le, route) (rate("
                f"memgate_http_request_duration_seconds_bucket{{{SEL}}}[{RATE}]))) "
                "or on() vector(0)",
                "p50 {{route}}",
            ),
            _q(
                "histogram_quantile(0.99, sum by (le, route) (rate("
                f"memgate_http_request_duration_seconds_bucket{{{SEL}}}[{RATE}]))) "
                "or on() vector(0)",
                "p99 {{route}}",
                "B",
            ),
        )
    )


def quality() -> db.Dashboard:
    d = (
        db.Dashboard("memgate: memory quality")
        .uid("memgate-quality")
        .description("What reaches long-term memory: amplification, redactions, cost, staleness.")
        .tags(["memgate"])
        .time("now-6h", "now")
        .refresh("1m")
    )
    d = _stat_row(_prom_variables(d)).with_row(db.Row("Quality"))
    panels = [
        _series(
            "Write amplification",
            "Fact rows stored per turn: the fleet ratio of rates (no value while idle) and each "
            "worker's since-start gauge (memgate_write_amplification).",
            "short",
            _q(WRITE_AMPLIFICATION, "fleet (rate window)"),
            _q(f"memgate_write_amplification{{{SEL}}}", "{{instance}} since start", "B"),
        ),
        _series(
            "Facts stored by action",
            "New fact rows per second by action: add, supersede, promote.",
            "ops",
            _q(
                f"sum by (action) (rate(memgate_facts_written_total{{{SEL}}}[{RATE}]))",
                "{{action}}",
            ),
        ),
        _series(
            "Redactions by kind",
            "Sensitive spans masked per second, by kind (email, phone, card, api_key...).",
            "ops",
            _q(f"sum by (kind) (rate(memgate_redactions_total{{{SEL}}}[{RATE}]))", "{{kind}}"),
        ),
        _series(
            "Extraction calls per 1,000 turns (cost)",
            "Extractor invocations per 1,000 turns ingested, by extractor (no value while idle).",
            "short",
            _q(
                "1000 * sum by (extractor) "
                f"(rate(memgate_extraction_calls_total{{{SEL}}}[{RATE}])) "
                "/ on() group_left() "
                f"(sum(rate(memgate_turns_ingested_total{{{SEL}}}[{RATE}])) > 0)",
                "{{extractor}}",
            ),
        ),
        _series(
            "Final check masked",
            "Records the final check before the stores had to mask, by kind: should stay 0 "
            "(alert: MemgateFinalCheckMasked).",
            "short",
            _q(
                f"sum by (record) (increase(memgate_final_check_masked_total{{{SEL}}}[{RATE}]))",
                "{{record}}",
            ),
        ),
        _series(
            "Served-fact age p50 and p99, searches",
            "Age of the facts search returned (median, 99th percentile) and searches per "
            "second by backend; no age while nothing is searched.",
            "s",
            _q(
                "histogram_quantile(0.5, sum by (le) "
                f"(rate(memgate_served_fact_age_seconds_bucket{{{SEL}}}[1h])))",
                "age p50",
            ),
            _q(
                "histogram_quantile(0.99, sum by (le) "
                f"(rate(memgate_served_fact_age_seconds_bucket{{{SEL}}}[1h])))",
                "age p99",
                "B",
            ),
            _q(
                f"sum by (backend) (rate(memgate_retrievals_total{{{SEL}}}[{RATE}])) "
                "or on() vector(0)",
                "searches {{backend}}",
                "C",
            ),
        ),
    ]
    for p in panels:
        d = d.with_panel(p)
    return d


# ------------------------------------------------------------------ audit (ClickHouse)


class ClickHouseQuery(cogvariants.Dataquery):
    """A grafana-clickhouse-datasource SQL query (the SDK has no builder for this plugin)."""

    def __init__(self, ref_id: str, sql: str, fmt: int) -> None:
        self.ref_id, self.sql, self.fmt = ref_id, sql, fmt

    def to_json(self) -> dict[str, object]:
        return {
            "refId": self.ref_id,
            "datasource": {"type": CH.type_val, "uid": CH.uid},
            "editorType": "sql",
            "rawSql": self.sql,
            # 0 = time series, 1 = table (the plugin's Format enum)
            "format": self.fmt,
            "queryType": "timeseries" if self.fmt == 0 else "table",
        }


class ClickHouseQueryBuilder(cogbuilder.Builder[ClickHouseQuery]):
    def __init__(self, ref_id: str, sql: str, fmt: int) -> None:
        self._internal = ClickHouseQuery(ref_id, sql, fmt)

    def build(self) -> ClickHouseQuery:
        return self._internal


#: The audit panels' scope: the tenant variable, and Grafana's time range on event time.
AUDIT_TENANT = "('${tenant}' = '' OR tenant_id = '${tenant}')"


def _audit_sql(sql: str) -> str:
    return " ".join(sql.split())


def audit() -> db.Dashboard:
    d = (
        db.Dashboard("memgate: audit")
        .uid("memgate-audit")
        .description(
            "The audit store (ClickHouse): turns, decisions and fact history by event time "
            "(when a turn was said). The same figures as `memgate audit REPORT`."
        )
        .tags(["memgate", "audit"])
        .time("now-30d", "now")
        .with_variable(
            db.DatasourceVariable("datasource")
            .label("Data source")
            .type("grafana-clickhouse-datasource")
            .description("The ClickHouse that holds the memgate audit database.")
        )
        .with_variable(
            db.QueryVariable("tenant")
            .label("Tenant")
            .datasource(CH)
            .query("SELECT DISTINCT tenant_id FROM memgate.journal ORDER BY tenant_id")
            .refresh(dm.VariableRefresh.ON_DASHBOARD_LOAD)
            .include_all(True)
            .all_value("")
            .description("One tenant, or All (every tenant).")
        )
    )
    turns = (
        "SELECT $__timeInterval(ts) AS time, count() AS turns, countIf(verdict = 'keep') AS kept "
        f"FROM memgate.journal FINAL WHERE $__timeFilter(ts) AND {AUDIT_TENANT} "
        "GROUP BY time ORDER BY time"
    )
    stored = (
        "SELECT $__timeInterval(j.ts) AS time, count() AS facts_stored "
        "FROM memgate.fact_history AS h FINAL "
        "INNER JOIN (SELECT tenant_id, turn_id, min(ts) AS ts FROM memgate.journal FINAL "
        "GROUP BY tenant_id, turn_id) AS j "
        "ON j.tenant_id = h.tenant_id AND j.turn_id = h.source_turn_id "
        "WHERE lower(h.action) IN ('add', 'promote', 'supersede') AND $__timeFilter(j.ts) "
        "AND ('${tenant}' = '' OR h.tenant_id = '${tenant}') GROUP BY time ORDER BY time"
    )
    drops = (
        "SELECT stage, reason, count() AS decisions FROM memgate.decisions FINAL "
        "WHERE lower(verdict) NOT IN ('keep', 'extracted', 'facts', 'clean', 'redacted', 'add', "
        "'supersede', 'stored', 'written', 'ok') AND $__timeFilter(decided_at) "
        f"AND {AUDIT_TENANT} GROUP BY stage, reason ORDER BY decisions DESC LIMIT 50"
    )
    supersessions = (
        "SELECT at AS ingested_at, tenant_id, user_id, key, fact_id, supersedes, value "
        "FROM memgate.fact_history FINAL WHERE lower(action) = 'supersede' "
        f"AND {AUDIT_TENANT} ORDER BY at DESC LIMIT 100"
    )
    panels: list[cogbuilder.Builder[dm.Panel]] = [
        timeseries.Panel()
        .title("Turns by event time")
        .description("Turns journaled and turns kept by triage, bucketed by when they were said.")
        .datasource(CH)
        .with_target(ClickHouseQueryBuilder("A", _audit_sql(turns), 0))
        .height(8)
        .span(12),
        timeseries.Panel()
        .title("Fact rows stored by event time")
        .description(
            "Facts added, promoted or superseding, bucketed by their source turn's event time "
            "(the `daily` report's facts_stored)."
        )
        .datasource(CH)
        .with_target(ClickHouseQueryBuilder("A", _audit_sql(stored), 0))
        .height(8)
        .span(12),
        table.Panel()
        .title("Drop reasons (decided in range)")
        .description("Decisions that did not admit the candidate, by stage and reason.")
        .datasource(CH)
        .with_target(ClickHouseQueryBuilder("A", _audit_sql(drops), 1))
        .height(10)
        .span(12),
        table.Panel()
        .title("Latest supersessions")
        .description(
            "The 100 latest facts replaced by a newer one; `memgate audit explain --fact ID` "
            "shows the chain behind any of them."
        )
        .datasource(CH)
        .with_target(ClickHouseQueryBuilder("A", _audit_sql(supersessions), 1))
        .height(10)
        .span(12),
    ]
    for p in panels:
        d = d.with_panel(p)
    return d


DASHBOARDS = {
    "memgate-pipeline.json": pipeline,
    "memgate-quality.json": quality,
    "memgate-audit.json": audit,
}


def render() -> dict[str, str]:
    """File name -> the dashboard JSON this generator writes."""
    out: dict[str, str] = {}
    for name, make in DASHBOARDS.items():
        model: Any = make().build()
        out[name] = json.dumps(model, cls=JSONEncoder, indent=2, sort_keys=True) + "\n"
    return out


def main(argv: list[str]) -> int:
    rendered = render()
    if "--check" in argv:
        stale = [n for n, t in rendered.items() if not (OUT / n).exists()
                 or (OUT / n).read_text() != t]
        for n in stale:
            print(f"dashboards/{n} differs from tools/dashboards.py: run make dashboards")
        return 1 if stale else 0
    for name, text in rendered.items():
        (OUT / name).write_text(text)
        print(f"wrote dashboards/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
