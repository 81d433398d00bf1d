"""Settings: env prefix, TOML file, frozen, secrets masked, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgate.core.errors import ConfigError
from memgate.core.settings import load_settings


def test_env_prefix_and_overrides(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEMGATE_POLICY", "conservative")
    monkeypatch.setenv("MEMGATE_DATA_DIR", str(tmp_path))
    s = load_settings()
    assert s.policy == "conservative" and s.data_dir == tmp_path
    assert load_settings(policy="permissive").policy == "permissive"


def test_toml_file_and_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    cfg = tmp_path / "memgate.toml"
    cfg.write_text('policy = "permissive"\nanthropic_api_key = "sk-test-123"\nsearch_k = 7\n')
    s = load_settings(cfg)
    assert s.policy == "permissive" and s.search_k == 7
    assert s.anthropic_api_key is not None
    assert s.anthropic_api_key.get_secret_value() == "sk-test-123"
    assert "sk-test-123" not in str(s.describe()) and "sk-test-123" not in repr(s)
    monkeypatch.setenv("MEMGATE_POLICY", "balanced")
    assert load_settings(cfg).policy == "balanced"  # env beats the file


def test_frozen(tmp_path: Path) -> None:
    s = load_settings(data_dir=tmp_path)
    with pytest.raises(Exception, match="frozen"):
        s.policy = "permissive"  # type: ignore[misc]


def test_errors_name_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="policy"):
        load_settings(policy="reckless")
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("no_such_setting = 1\n")
    with pytest.raises(ConfigError, match="no_such_setting"):
        load_settings(bad)
