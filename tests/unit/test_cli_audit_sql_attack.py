"""Attacker pass on ``memgate audit`` (session 22): ``--sql`` runs one read-only statement,
big results stream, ``--list`` names every table.

Each test failed on the code before the pass (see README, "Attacker pass (session 22)").
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app
from memgate.sinks.audit import REPORTS, TABLES


def _cli(data: Path, *args: str) -> Any:
    return CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", str(data), *args])


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("audit-attack")
    turns = root / "turns.jsonl"
    turns.write_text((resources.files("memgate") / "data" / "demo.jsonl").read_text())
    r = _cli(root / "data", "ingest", str(turns))
    assert r.exit_code == 0, r.output
    return root / "data"


def _one_error_line(r: Any) -> str:
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1, lines
    return str(lines[0])


def test_a_second_statement_never_runs(data: Path, tmp_path: Path) -> None:
    """chDB ran every statement of the text: the second one unchecked (a file written here)."""
    victim = tmp_path / "second"
    sql = f"SELECT 1; SELECT 2 INTO OUTFILE '{victim}'"
    line = _one_error_line(_cli(data, "audit", "--sql", sql))
    assert "one statement" in line and "one at a time" in line
    assert not victim.exists()
    line = _one_error_line(_cli(data, "audit", "--sql", "SELECT 1; SELECT file('/etc/hostname')"))
    assert "one statement" in line


def test_a_semicolon_in_a_string_or_a_comment_and_a_trailing_one_are_fine(data: Path) -> None:
    r = _cli(data, "audit", "--format", "json", "--sql", "SELECT ';' AS x, 'a;b' AS y -- c; d\n;")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == [{"x": ";", "y": "a;b"}]


def test_into_outfile_is_refused_and_the_file_kept(data: Path, tmp_path: Path) -> None:
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me\n")
    sql = f"SELECT 'gone' INTO OUTFILE '{victim}' TRUNCATE"
    line = _one_error_line(_cli(data, "audit", "--sql", sql))
    assert "INTO OUTFILE" in line and "--output" in line
    assert victim.read_text() == "keep me\n"


def test_a_format_clause_is_refused_with_the_option_to_use(data: Path) -> None:
    line = _one_error_line(_cli(data, "audit", "--sql", "SELECT 1 FORMAT JSONEachRow"))
    assert "FORMAT JSONEachRow" in line and "--format" in line


@pytest.mark.parametrize(
    "sql",
    [
        "KILL QUERY WHERE 1",  # ran: it kills the engine's queries (a server's, all of them)
        "USE system",  # ran: the client's database for every later query
        "SET max_threads = 1",
        "SELECT * FROM s3('http://127.0.0.1:1/b/x.csv', 'CSV')",
        "SELECT * FROM remote('127.0.0.1:1', system.one)",
        "SELECT * FROM executable('cat /etc/hostname', 'LineAsString', 'x String')",
        "DESCRIBE file('/etc/hostname', 'LineAsString')",
        # chDB's default database is clickhouse-local's: a table name there is a file
        "SELECT * FROM default.`/etc/hostname`",
        "SELECT 'x' IN default.`/etc/hostname` AS found",
        "DESCRIBE TABLE default.`/etc/hostname`",
        "SELECT hasColumnInTable('default', '/etc/hostname', 'c1') AS h",  # the file's columns
        # its tree does not show the WHERE: file() read the disk, url() the network
        "SHOW TABLES WHERE name = file('/etc/hostname')",
        "SHOW TABLES WHERE 1 IN (SELECT count() FROM url('http://127.0.0.1:1/', 'LineAsString'))",
        # settings that are SQL of their own, unchecked: file() read the disk
        "SELECT number AS n FROM numbers(9) "
        "SETTINGS additional_result_filter = 'n < length(file(\\'/etc/hostname\\'))'",
        "SELECT count() FROM system.one "
        "SETTINGS additional_table_filters = {'system.one': 'length(file(\\'/etc/hosts\\')) > 0'}",
    ],
)
def test_statements_that_act_or_reach_out_are_refused(data: Path, sql: str) -> None:
    line = _one_error_line(_cli(data, "audit", "--sql", sql))
    assert "query refused (READONLY)" in line  # not the engine's "Connection refused"


def test_describe_and_the_tables_from_system_still_run(data: Path) -> None:
    sql = "SELECT name FROM system.tables WHERE database = currentDatabase()"
    r = _cli(data, "audit", "--format", "json", "--sql", sql)
    assert r.exit_code == 0, r.output
    assert {row["name"] for row in json.loads(r.output)} == {t.name for t in TABLES}
    r = _cli(data, "audit", "--format", "json", "--sql", "DESCRIBE TABLE disagreements")
    assert r.exit_code == 0, r.output
    sql = "SELECT count() AS n FROM memgate.journal AS j, system.one WHERE j.tenant_id = 'globex'"
    r = _cli(data, "audit", "--format", "json", "--sql", sql)
    assert r.exit_code == 0 and json.loads(r.output) == [{"n": 4}], r.output


def test_a_tenant_placeholder_in_a_comment_or_a_string_scopes_nothing(data: Path) -> None:
    """`-t globex` with `{tenant:String}` only in a comment read every tenant's rows."""
    for sql in (
        "SELECT count() AS n FROM journal -- {tenant:String}",
        "SELECT count() AS n, '{tenant:String}' AS s FROM journal",
        "SELECT count() AS n FROM journal /* WHERE tenant_id = {tenant:String} */",
    ):
        line = _one_error_line(_cli(data, "audit", "--sql", sql, "-t", "globex"))
        assert "does not use {tenant:String}" in line, sql
    sql = "SELECT count() AS n FROM journal WHERE tenant_id = {tenant:String} -- mine"
    r = _cli(data, "audit", "--format", "json", "-t", "globex", "--sql", sql)
    assert r.exit_code == 0 and json.loads(r.output) == [{"n": 4}], r.output


def test_a_huge_query_gets_a_short_error(data: Path) -> None:
    sql = "SELECT " + " + ".join(["1"] * 60_000) + " AS n FROM nowhere"
    line = _one_error_line(_cli(data, "audit", "--sql", sql))
    assert len(line) < 1000


def test_list_names_every_report_and_every_table(data: Path) -> None:
    r = _cli(data, "audit", "--list")
    assert r.exit_code == 0, r.output
    for name in REPORTS:
        assert name in r.output
    for table in TABLES:
        assert f"memgate.{table.name}" in r.output, table.name


def test_the_table_shows_ten_thousand_rows_and_says_how_to_get_them_all(data: Path) -> None:
    r = _cli(data, "audit", "--sql", "SELECT number AS n FROM numbers(25000)")
    assert r.exit_code == 0, r.output
    assert "│ 9999 " in r.output and "│ 10000 " not in r.output
    assert "15,000" in r.output and "--format csv" in r.output


def test_the_table_cuts_a_huge_cell(data: Path) -> None:
    """One 20 MB cell took 230 s to draw; cut at 1,000 characters, csv/json have it whole."""
    sql = "SELECT repeat('ab ', 300000) AS s, 'short' AS t"
    r = _cli(data, "audit", "--sql", sql)
    assert r.exit_code == 0, r.output
    assert len(r.output) < 20_000 and "900,000 characters" in r.output
    assert "short" in r.output and "--format csv" in r.output
    r = _cli(data, "audit", "--sql", sql, "--format", "csv")
    assert r.exit_code == 0 and len(r.output) > 900_000


def test_csv_and_json_write_every_row(data: Path, tmp_path: Path) -> None:
    sql = "SELECT number AS n, toString(number) AS s FROM numbers(150000)"
    r = _cli(data, "audit", "--sql", sql, "--format", "csv")
    assert r.exit_code == 0
    rows = list(csv.reader(io.StringIO(r.output)))
    assert rows[0] == ["n", "s"] and len(rows) == 150_001 and rows[-1] == ["149999", "149999"]
    out = tmp_path / "rows.json"
    r = _cli(data, "audit", "--sql", sql, "--format", "json", "-o", str(out))
    assert r.exit_code == 0, r.output
    got = json.loads(out.read_text())
    assert len(got) == 150_000 and got[-1] == {"n": 149999, "s": "149999"}
    r = _cli(data, "audit", "--sql", "SELECT 1 AS a WHERE 0", "--format", "json")
    assert r.exit_code == 0 and json.loads(r.output) == []


_PEAK = """
import atexit, resource, sys
from memgate.cli import run
out = sys.argv.pop(1)
peak = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
atexit.register(lambda: open(out, "w").write(str(peak())))
sys.argv[0] = "memgate"
run()
"""


def _peak_kib(data: Path, tmp_path: Path, rows: int, fmt: str) -> int:
    peak = tmp_path / f"peak-{rows}-{fmt}"
    sql = f"SELECT number AS n, toString(number) AS s, 'some text' AS t FROM numbers({rows})"
    env = {**os.environ, "MEMGATE_EMBEDDER": "hashing"}
    done = subprocess.run(
        [sys.executable, "-c", _PEAK, str(peak), "--data-dir", str(data), "audit", "--sql", sql,
         "--format", fmt, "-o", str(tmp_path / f"out.{fmt}")],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(peak.read_text())


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_stream_in_bounded_memory(data: Path, tmp_path: Path, fmt: str) -> None:
    """Two million rows held in memory took some 600 MB more than ten rows; streamed, a
    block's worth (a few MB)."""
    small = _peak_kib(data, tmp_path, 10, fmt)
    big = _peak_kib(data, tmp_path, 2_000_000, fmt)
    assert (big - small) < 150 * 1024, (small, big)


def test_csv_to_a_terminal_escapes_control_characters(data: Path, tmp_path: Path) -> None:
    """A turn's text can hold terminal escapes (OSC 52 writes the clipboard); `--format csv`
    wrote them raw to the analyst's terminal (the table and JSON escaped them already)."""
    import pty

    sql = "SELECT concat('a', char(27), ']52;c;eA==', char(7), 'b') AS s"
    primary, secondary = pty.openpty()
    env = {**os.environ, "MEMGATE_EMBEDDER": "hashing"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memgate.cli", "--data-dir", str(data), "audit", "--sql", sql,
         "--format", "csv"],
        stdout=secondary, stderr=subprocess.PIPE, env=env,
    )  # fmt: skip
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    os.close(primary)
    assert proc.wait(timeout=120) == 0
    assert b"\x1b" not in seen and b"\x07" not in seen, seen
    assert b"a\\x1b]52;c;eA==\\x07b" in seen, seen
    r = _cli(data, "audit", "--sql", sql, "--format", "csv")  # not a terminal: the data as it is
    assert r.exit_code == 0 and "a\x1b]52;c;eA==\x07b" in r.output


def test_a_report_with_sql_or_a_fact_without_explain_is_a_usage_error(data: Path) -> None:
    """`audit verdicts --sql ...` ran the SQL under the report's title; `audit verdicts
    --fact F` ignored the fact."""
    r = _cli(data, "audit", "verdicts", "--sql", "SELECT 1")
    assert r.exit_code == 2 and "not both" in r.output
    r = _cli(data, "audit", "verdicts", "--fact", "f1")
    assert r.exit_code == 2 and "go with 'explain'" in r.output
    assert _cli(data, "audit", "explain", "--turn", "a-001", "-t", "acme").exit_code == 0
