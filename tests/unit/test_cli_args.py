"""Bad flag values are one clear usage error (exit 2), never a traceback; secrets stay masked.

Issue 8, item 10 (command line): ``search ""``, ``-k 0``/``-5``/``100000000``, a
Cyrillic look-alike or a space in an id and ``--as-of`` at year 1 with an offset
gave tracebacks; ``memgate config`` printed passwords embedded in URLs;
``forget`` of an unknown user said "0 facts" with exit 0, and a ``forget`` that
met a locked store deleted the facts first and did not say so; the data dir
was created world-readable.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memgate.cli import app

ROOT = Path(__file__).resolve().parents[2]
TURNS = [
    ("t1", "I use Neovim as my editor."),
    ("t2", "From now on, always deploy the billing service with a canary."),
]


def _cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner(env=env).invoke(
        app, ["--embedder", "hashing", "--data-dir", str(tmp_path / "data"), *args]
    )


def _turns_file(tmp_path: Path, tenant: str = "acme", user: str = "alice") -> Path:
    path = tmp_path / "turns.jsonl"
    rows = [
        {
            "tenant_id": tenant,
            "user_id": user,
            "session_id": "s1",
            "turn_id": tid,
            "role": "user",
            "content": text,
            "ts": "2024-03-01T09:00:00Z",
        }
        for tid, text in TURNS
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _usage_error(result: Any, *says: str) -> None:
    """Exit 2, no traceback, and the message (the box's layout aside) says each of ``says``."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output
    flat = " ".join(result.output.replace("│", " ").split())
    for s in says:
        assert s in flat, (s, flat)


# ----------------------------------------------------------------------------- search


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_a_usage_error(tmp_path: Path, query: str) -> None:
    _usage_error(_cli(tmp_path, "search", query, "-t", "acme", "-u", "alice"), "empty")


def test_an_overlong_query_is_a_usage_error(tmp_path: Path) -> None:
    result = _cli(tmp_path, "search", "x" * 2_001, "-t", "acme", "-u", "alice")
    _usage_error(result, "2,001 characters", "2,000")


@pytest.mark.parametrize(
    ("k", "says"),
    [
        ("0", "greater than or equal to 1"),
        ("-5", "greater than or equal to 1"),
        ("100000000", "less than or equal to 1000"),
        ("99999999999999999999999", "less than or equal to 1000"),
    ],
)
def test_k_out_of_range_is_a_usage_error(tmp_path: Path, k: str, says: str) -> None:
    _usage_error(_cli(tmp_path, "search", "x", "-t", "acme", "-u", "alice", "-k", k), says)


BAD_IDS = [
    ("--user", "\u0430lice", "U+0430 CYRILLIC SMALL LETTER A"),
    ("--user", "al ice", "U+0020 SPACE"),
    ("--tenant", "ac me", "U+0020 SPACE"),
    ("--tenant", "a/b", "'/'"),
    ("--tenant", "acme\n", "U+000A"),
    ("--user", "", "empty"),
    ("--user", "a" * 201, "at most 200"),
    ("--user", "\uff41lice", "FULLWIDTH LATIN SMALL LETTER A"),
]
CASES = [
    (command, *bad)
    for command in ("search", "facts", "forget", "audit")
    for bad in BAD_IDS
    if not (command == "audit" and bad[0] == "--user")  # audit reports take a tenant only
]


@pytest.mark.parametrize(("command", "flag", "value", "says"), CASES)
def test_a_bad_id_is_a_usage_error_in_every_command(
    tmp_path: Path, command: str, flag: str, value: str, says: str
) -> None:
    ids = {"--tenant": "acme", "--user": "alice", flag: value}
    if command == "audit":
        args = ["audit", "verdicts", "--tenant", ids["--tenant"]]
    else:
        args = [command, "--tenant", ids["--tenant"], "--user", ids["--user"]]
        if command == "search":
            args.insert(1, "x")
        if command == "forget":
            args.append("--yes")
    _usage_error(_cli(tmp_path, *args), says)
    assert not (tmp_path / "data" / "retrieval.sqlite3").exists()


@pytest.mark.parametrize("flag", ["--as-of", "--now"])
@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("0001-01-01T00:00:00+05:00", "out of range"),
        ("9999-12-31T23:00:00-05:00", "out of range"),
        ("1066-10-14T00:00:00Z", "out of range"),
        ("yesterday", "ISO 8601"),
    ],
)
def test_a_time_out_of_range_is_a_usage_error(
    tmp_path: Path, flag: str, value: str, says: str
) -> None:
    result = _cli(tmp_path, "search", "x", "-t", "acme", "-u", "alice", flag, value)
    _usage_error(result, says)


def test_a_good_search_still_works(tmp_path: Path) -> None:
    assert _cli(tmp_path, "ingest", str(_turns_file(tmp_path))).exit_code == 0
    result = _cli(
        tmp_path, "search", "editor", "-t", "acme", "-u", "alice", "-k", "1000", "--json",
        "--as-of", "2024-03-02T00:00:00+05:00",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert any("Neovim" in h["fact"]["value"] for h in json.loads(result.stdout))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--k", "100000000"], "less than or equal to 1000"),
        (["--k", "0"], "greater than or equal to 1"),
        (["--limit", "0"], "greater than or equal to 1"),
        (["--pollution", "0,1000000000"], "at most 100"),
        (["--pollution", "-1"], "at most 100"),
    ],
)
def test_bench_flags_out_of_range_are_usage_errors(
    tmp_path: Path, args: list[str], says: str
) -> None:
    data = tmp_path / "locomo.json"
    data.write_text("[]", encoding="utf-8")
    _usage_error(_cli(tmp_path, "bench", "locomo", "--data", str(data), *args), says)


# ----------------------------------------------------------------------------- config

SECRETS = ["s3cret-os", "s3cret-ch", "s3cret-kafka", "s3cret-q", "s3cret-tok", "s3cret-anth"]


def test_config_masks_passwords_embedded_in_every_url(tmp_path: Path) -> None:
    cfg = tmp_path / "memgate.toml"
    cfg.write_text(
        textwrap.dedent(
            """
            opensearch_url = "https://admin:s3cret-os@search.internal:9200"
            clickhouse_url = "http://default:s3cret-ch@ch:8123/?password=s3cret-q"
            kafka_bootstrap = "svc:s3cret-kafka@k1:9092,svc:s3cret-kafka@k2:9092"
            anthropic_base_url = "https://s3cret-tok@proxy.internal/v1"
            anthropic_api_key = "s3cret-anth"
            """
        ),
        encoding="utf-8",
    )
    result = _cli(tmp_path, "--config", str(cfg), "config")
    assert result.exit_code == 0, result.output
    for s in SECRETS:
        assert s not in result.output, s
    shown = json.loads(result.stdout)
    assert shown["opensearch_url"] == "https://admin:****@search.internal:9200"
    assert shown["kafka_bootstrap"] == "svc:****@k1:9092,svc:****@k2:9092"
    assert shown["clickhouse_url"] == "http://default:****@ch:8123/?password=****"
    assert shown["anthropic_base_url"] == "https://****@proxy.internal/v1"
    assert shown["opensearch_index"] == "memgate-facts"  # plain values untouched


def test_config_masks_passwords_set_in_the_environment(tmp_path: Path) -> None:
    env = {"MEMGATE_OPENSEARCH_URL": "https://admin:s3cret-os@os:9200"}
    result = _cli(tmp_path, "config", env=env)
    assert result.exit_code == 0 and "s3cret-os" not in result.output


@pytest.mark.parametrize(
    "content", [b'policy = "x\n', b"\xff = 1\n", b"[[[\n"], ids=["string", "utf8", "table"]
)
def test_a_malformed_config_file_is_one_clear_error(tmp_path: Path, content: bytes) -> None:
    cfg = tmp_path / "memgate.toml"
    cfg.write_bytes(content)
    result = _cli(tmp_path, "--config", str(cfg), "config")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(cfg) in lines[0], lines


def test_a_data_dir_that_is_a_file_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("not a folder")
    result = _cli(tmp_path, "facts", "-t", "acme", "-u", "alice")
    assert result.exit_code == 2, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "not a folder" in lines[0]


# ----------------------------------------------------------------------------- data dir


def test_the_data_dir_and_every_store_file_are_private(tmp_path: Path) -> None:
    before = os.umask(0o022)
    try:
        assert _cli(tmp_path, "ingest", str(_turns_file(tmp_path))).exit_code == 0
        assert os.umask(0o022) == 0o022, "the command restores the process umask"
    finally:
        os.umask(before)
    data = tmp_path / "data"
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "retrieval.sqlite3").stat().st_mode) == 0o600
    assert stat.S_IMODE((data / "audit.chdb").stat().st_mode) == 0o700
    loose = [
        str(p)
        for p in data.rglob("*")
        if not p.is_symlink() and stat.S_IMODE(p.stat().st_mode) & 0o077
    ]
    assert not loose, loose[:5]


def test_an_existing_world_readable_data_dir_is_reported(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    result = _cli(tmp_path, "facts", "-t", "acme", "-u", "alice")
    assert result.exit_code == 0, result.output
    assert f"chmod 700 {data}" in " ".join(result.stderr.split())


# ----------------------------------------------------------------------------- forget


def _memgate(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command in its own process (each one opens and locks the stores itself)."""
    return subprocess.run(
        [sys.executable, "-m", "memgate.cli", "--embedder", "hashing",
         "--data-dir", str(tmp_path / "data"), *args],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip


@contextmanager
def _holding(code: str) -> Iterator[None]:
    """Another process holding a store (runs ``code``, prints 'held', waits for stdin)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code + "\nprint('held', flush=True)\nimport sys; sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)


def _fact_count(tmp_path: Path) -> int:
    result = _memgate(tmp_path, "facts", "-t", "acme", "-u", "alice", "--all", "--json")
    assert result.returncode == 0, result.stderr
    return len(json.loads(result.stdout))


def _error_lines(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("error: ")]


def test_forget_of_an_unknown_user_says_nothing_was_found_and_exits_1(tmp_path: Path) -> None:
    assert _cli(tmp_path, "ingest", str(_turns_file(tmp_path))).exit_code == 0
    result = _cli(tmp_path, "forget", "-t", "acme", "-u", "nobody", "--yes")
    assert result.exit_code == 1, result.output
    assert "0 facts" not in result.output
    assert "nothing stored for acme/nobody" in " ".join(result.stderr.split())


def test_forget_with_the_audit_store_locked_deletes_nothing(tmp_path: Path) -> None:
    assert _memgate(tmp_path, "ingest", str(_turns_file(tmp_path))).returncode == 0
    n = _fact_count(tmp_path)
    assert n > 0
    audit = tmp_path / "data" / "audit.chdb"
    hold = (
        "from memgate.sinks.audit import ClickHouseAudit\n"
        f"a = ClickHouseAudit.embedded({str(audit)!r})"
    )
    with _holding(hold):
        result = _memgate(tmp_path, "forget", "-t", "acme", "-u", "alice", "--yes")
    assert result.returncode == 1, result.stdout + result.stderr
    (line,) = _error_lines(result.stderr)
    assert "nothing was deleted" in line and "audit store" in line
    assert _fact_count(tmp_path) == n, "the facts are still there"
    done = _memgate(tmp_path, "forget", "-t", "acme", "-u", "alice", "--yes")
    assert done.returncode == 0, done.stderr
    assert f"{n} facts" in done.stdout
    assert _fact_count(tmp_path) == 0


def test_forget_that_fails_half_way_says_what_was_deleted_and_what_to_rerun(
    tmp_path: Path,
) -> None:
    assert _memgate(tmp_path, "ingest", str(_turns_file(tmp_path))).returncode == 0
    n = _fact_count(tmp_path)
    db = tmp_path / "data" / "retrieval.sqlite3"
    # a legal hold on the retrieval store: it opens and reads, but refuses to delete
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TRIGGER legal_hold BEFORE DELETE ON facts "
            "BEGIN SELECT RAISE(ABORT, 'legal hold'); END"
        )
    conn.close()
    result = _memgate(tmp_path, "forget", "-t", "acme", "-u", "alice", "--yes")
    assert result.returncode == 1, result.stdout + result.stderr
    (line,) = _error_lines(result.stderr)
    assert "audit rows of acme/alice were deleted" in line and "legal hold" in line
    assert f"deleting its {n} facts failed" in line
    assert "memgate forget -t acme -u alice --yes" in line
    assert _fact_count(tmp_path) == n
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER legal_hold")
    conn.close()
    done = _memgate(tmp_path, "forget", "-t", "acme", "-u", "alice", "--yes")
    assert done.returncode == 0, done.stderr
    assert f"forgot acme/alice: {n} facts, 0 audit rows" in done.stdout
    assert _fact_count(tmp_path) == 0


@pytest.mark.parametrize("how", ["flag", "env"])
def test_an_empty_data_dir_is_refused_not_read_as_the_current_folder(
    tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    if how == "flag":
        result = CliRunner().invoke(app, ["--embedder", "hashing", "--data-dir", "", "facts",
                                          "-t", "acme", "-u", "alice"])  # fmt: skip
    else:
        result = CliRunner(env={"MEMGATE_DATA_DIR": " "}).invoke(
            app, ["--embedder", "hashing", "facts", "-t", "acme", "-u", "alice"]
        )
    assert result.exit_code == 2, result.output
    assert "data_dir" in result.output and "empty" in result.output
    assert not (tmp_path / "retrieval.sqlite3").exists()


def test_a_data_dir_with_a_tilde_in_the_config_file_is_the_home_folder(tmp_path: Path) -> None:
    cfg = tmp_path / "memgate.toml"
    cfg.write_text('data_dir = "~/memgate-data"\n', encoding="utf-8")
    result = _cli(tmp_path, "--config", str(cfg), "config")
    assert json.loads(result.stdout)["data_dir"] == str(tmp_path / "data")  # the flag wins
    result = CliRunner().invoke(app, ["--config", str(cfg), "config"])
    assert json.loads(result.stdout)["data_dir"] == str(Path.home() / "memgate-data")


LONG = "a" * 5_000  # longer than any file name: every system call on it fails (ENAMETOOLONG)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["ingest", LONG], 1),
        (["produce", LONG], 1),
        (["eval", "--labelled", LONG], 1),
        (["bench", "locomo", "--data", LONG], 2),
        (["--config", LONG, "config"], 2),
        (["--data-dir", LONG, "facts", "-t", "acme", "-u", "alice"], 2),
    ],
    ids=["ingest", "produce", "eval", "bench", "config", "data-dir"],
)
def test_a_path_the_system_refuses_is_one_clear_error(
    tmp_path: Path, args: list[str], code: int
) -> None:
    if args[0] == "--data-dir":
        result = CliRunner().invoke(app, ["--embedder", "hashing", *args])
    else:
        result = _cli(tmp_path, *args)
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "too long" in lines[0] and len(lines[0]) < 400


def test_demo_never_deletes_through_a_symlinked_demo_dir(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("precious")
    (tmp_path / "data").mkdir(mode=0o700)
    (tmp_path / "data" / "demo").symlink_to(elsewhere)
    result = _cli(tmp_path, "demo")
    assert result.exit_code == 1, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "demo" in lines[0]
    assert (elsewhere / "keep.txt").read_text() == "precious"


def test_an_error_naming_a_url_masks_its_password_and_is_one_line(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MEMGATE_AUDIT_BACKEND": "clickhouse",
        "MEMGATE_CLICKHOUSE_URL": "http://u:s3cret-ch@127.0.0.1:9/",  # nothing listens on 9
    }
    result = subprocess.run(
        [sys.executable, "-m", "memgate.cli", "--data-dir", str(tmp_path / "d"), "audit",
         "verdicts"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "s3cret-ch" not in result.stdout + result.stderr
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "u:****@127.0.0.1" in lines[0]


def test_rerunning_a_forget_that_met_an_old_reader_finishes_the_erasure(tmp_path: Path) -> None:
    assert _memgate(tmp_path, "ingest", str(_turns_file(tmp_path))).returncode == 0
    db = tmp_path / "data" / "retrieval.sqlite3"
    hold = (
        "import sqlite3\n"
        f"c = sqlite3.connect({str(db)!r})\n"
        "c.execute('BEGIN'); c.execute('SELECT count(*) FROM facts').fetchone()"
    )
    with _holding(hold):  # another process keeps reading an old snapshot
        first = _memgate(tmp_path, "forget", "-t", "acme", "-u", "alice", "--yes")
    assert first.returncode == 1, first.stdout + first.stderr
    (line,) = _error_lines(first.stderr)
    assert "run forget again" in line
    again = _memgate(tmp_path, "forget", "-t", "acme", "-u", "alice", "--yes")
    assert again.returncode == 1 and "leftovers" in again.stderr, again.stderr
    disk = b"".join(p.read_bytes() for p in db.parent.glob("retrieval.sqlite3*"))
    assert b"alice" not in disk, "the re-run left the user's old pages in the WAL"


def test_config_masks_the_transport_passwords(tmp_path: Path) -> None:
    env = {
        "MEMGATE_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
        "MEMGATE_KAFKA_SASL_USERNAME": "memgate",
        "MEMGATE_KAFKA_SASL_PASSWORD": "s3cret-sasl",
        "MEMGATE_OPENSEARCH_PASSWORD": "s3cret-os",
        "MEMGATE_OPENSEARCH_USERNAME": "memgate",
        "MEMGATE_CLICKHOUSE_PASSWORD": "s3cret-ch",
    }
    result = _cli(tmp_path, "config", env=env)
    assert result.exit_code == 0, result.output
    assert "s3cret" not in result.output
    shown = json.loads(result.stdout)
    assert shown["kafka_sasl_password"] == shown["opensearch_password"] == "****"
    assert shown["kafka_security_protocol"] == "SASL_SSL"


def test_sasl_without_a_password_is_one_error_line(tmp_path: Path) -> None:
    env = {"MEMGATE_KAFKA_SECURITY_PROTOCOL": "SASL_SSL", "MEMGATE_KAFKA_SASL_USERNAME": "mg"}
    result = _cli(tmp_path, "config", env=env)
    assert result.exit_code == 2
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines == [
        "error: invalid settings (kafka_security_protocol SASL_SSL needs kafka_sasl_password: "
        "set MEMGATE_KAFKA_SASL_PASSWORD); set them with MEMGATE_<NAME> or in the TOML file"
    ]


def test_a_kafka_nobody_listens_on_is_one_error_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {"MEMGATE_KAFKA_BOOTSTRAP": f"127.0.0.1:{port}"}
    result = _cli(tmp_path, "produce", str(_turns_file(tmp_path)), env=env)
    assert result.exit_code == 1, result.output
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot reach Kafka at 127.0.0.1:{port}")
    assert "MEMGATE_KAFKA_BOOTSTRAP" in lines[0]
