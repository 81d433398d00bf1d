"""The Grafana dashboards: generated from tools/dashboards.py, and naming only real metrics."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml

from memgate.streams.metrics import METRIC_NAMES

ROOT = Path(__file__).resolve().parents[2]
DASHBOARDS = ROOT / "dashboards"
ALERTS = ROOT / "deploy" / "prometheus" / "alerts.yml"
_METRIC = re.compile(r"\b(memgate_[a-z0-9_]+|memgate:[a-z0-9_:]+)")
_HISTOGRAM_SERIES = ("_bucket", "_sum", "_count")


def _generator() -> ModuleType:
    path = ROOT / "tools" / "dashboards.py"
    spec = importlib.util.spec_from_file_location("dashboards_gen", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _panels() -> list[tuple[str, dict[str, Any]]]:
    return [
        (d.name, p)
        for d in sorted(DASHBOARDS.glob("*.json"))
        for p in json.loads(d.read_text())["panels"]
        if p["type"] != "row"
    ]


def _prom_exprs() -> list[str]:
    return [
        t["expr"] for _, p in _panels() for t in p.get("targets", []) if "expr" in t
    ]


def test_the_committed_dashboards_are_what_the_generator_writes() -> None:
    rendered = _generator().render()
    on_disk = {p.name: p.read_text() for p in DASHBOARDS.glob("*.json")}
    assert set(on_disk) == set(rendered), "run make dashboards"
    for name, text in rendered.items():
        assert on_disk[name] == text, f"dashboards/{name} was edited by hand: run make dashboards"


def test_every_panel_has_a_description_and_the_datasource_variable() -> None:
    panels = _panels()
    assert len(panels) >= 20
    for name, p in panels:
        assert p.get("description", "").strip(), (name, p["title"])
        assert p["datasource"]["uid"] == "${datasource}", (name, p["title"])
        for t in p["targets"]:
            assert t["datasource"]["uid"] == "${datasource}", (name, p["title"])


def test_every_prometheus_query_uses_the_job_and_instance_variables() -> None:
    exprs = _prom_exprs()
    assert len(exprs) >= 20
    for e in exprs:
        assert 'job=~"$job"' in e and 'instance=~"$instance"' in e, e
    # the stage variable is used wherever a stage-labelled metric is read
    for e in exprs:
        staged = r"memgate_(events_in|events_out|events_dropped|stage_latency|consumer_lag)"
        if re.search(staged, e):
            assert 'stage=~"$stage"' in e, e


def test_each_prometheus_dashboard_has_the_variables_and_a_thresholded_stat_row() -> None:
    for name in ("memgate-pipeline.json", "memgate-quality.json"):
        d = json.loads((DASHBOARDS / name).read_text())
        variables = {v["name"]: v for v in d["templating"]["list"]}
        assert variables["datasource"]["type"] == "datasource"
        assert variables["datasource"]["query"] == "prometheus"
        for v in ("job", "instance", "stage"):
            assert variables[v]["query"].startswith("label_values("), (name, v)
        stats = {p["title"]: p for p in d["panels"] if p["type"] == "stat"}
        assert {
            "Consumer lag",
            "Dead letters (1 h)",
            "Write amplification",
            "Stage latency p99",
            "Served-fact age p50",
        } <= set(stats), name
        for title, p in stats.items():
            steps = p["fieldConfig"]["defaults"]["thresholds"]["steps"]
            assert len(steps) >= 2, (name, title)


def test_latency_is_shown_as_p99_and_ratios_filter_their_denominator() -> None:
    exprs = _prom_exprs()
    latency = [e for e in exprs if "memgate_stage_latency_seconds_bucket" in e]
    assert latency and any("histogram_quantile(0.99" in e for e in latency)
    assert not any("clamp_min" in e for e in exprs), "a clamped denominator reads 8.6e8 when idle"
    for e in exprs:
        if re.search(r"\)\s*/", e):  # a ratio of rates: the denominator must be filtered > 0
            assert re.search(r"/ (on\(\) group_left\(\) )?\(.*> 0\)$", e), e


def _names(text: str) -> set[str]:
    names = set()
    for m in _METRIC.findall(text):
        for suffix in _HISTOGRAM_SERIES:
            if m.endswith(suffix) and m.removesuffix(suffix) in METRIC_NAMES:
                m = m.removesuffix(suffix)
        names.add(m)
    return names


def test_every_metric_a_dashboard_or_an_alert_names_exists() -> None:
    rules = yaml.safe_load(ALERTS.read_text())
    recorded = {r["record"] for g in rules["groups"] for r in g["rules"] if "record" in r}
    known = set(METRIC_NAMES) | recorded
    dashboard_names = set().union(*(_names(e) for e in _prom_exprs()))
    variable_names = set().union(
        *(
            _names(str(v.get("query", "")))
            for d in DASHBOARDS.glob("*.json")
            for v in json.loads(d.read_text())["templating"]["list"]
        )
    )
    alert_names = _names(ALERTS.read_text())
    assert dashboard_names and alert_names
    assert dashboard_names - known == set()
    assert variable_names - known == set()
    assert alert_names - known == set()


def test_compose_creates_the_audit_schema_and_gives_grafana_clickhouse() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    ch = compose["services"]["clickhouse"]
    assert re.fullmatch(r"clickhouse/clickhouse-server:\d+\.\d+\.\d+\.\d+", ch["image"])
    assert "./clickhouse/init:/docker-entrypoint-initdb.d:ro" in ch["volumes"]
    grafana = compose["services"]["grafana"]["environment"]
    plugin = grafana["GF_INSTALL_PLUGINS"]
    assert re.fullmatch(r"grafana-clickhouse-datasource \d+\.\d+\.\d+", plugin)
    provisioning = ROOT / "deploy" / "grafana" / "provisioning" / "datasources"
    sources = yaml.safe_load((provisioning / "clickhouse.yaml").read_text())["datasources"]
    assert [s["type"] for s in sources] == ["grafana-clickhouse-datasource"]
    audit = json.loads((DASHBOARDS / "memgate-audit.json").read_text())
    variables = {v["name"]: v for v in audit["templating"]["list"]}
    assert variables["datasource"]["query"] == "grafana-clickhouse-datasource"
    assert "tenant" in variables
    for p in audit["panels"]:
        for t in p["targets"]:
            assert "${tenant}" in t["rawSql"] and "memgate." in t["rawSql"], p["title"]
