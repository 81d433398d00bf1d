"""memgate_consumer_lag counts what the group has not committed; the worker joins its
group with a short session timeout and a static instance id."""

from __future__ import annotations

from pathlib import Path

from memgate.core.settings import load_settings
from memgate.streams.kafka_client import membership
from memgate.streams.lag import Partition, lag_of

TP = Partition("memgate.turns", 0)


def test_lag_is_the_log_end_minus_the_committed_offset_not_the_read_position() -> None:
    # the case: the consumer has read to the end (its position is 4,124) but the
    # group has committed only 3,000: the lag is 1,124, not 0
    assert lag_of({TP: 3000}, {TP: 4124}) == {TP: 1124}


def test_a_partition_with_nothing_committed_lags_from_the_log_start() -> None:
    assert lag_of({TP: -1}, {TP: 500}, {TP: 100}) == {TP: 400}
    assert lag_of({}, {TP: 500}) == {TP: 500}


def test_lag_is_never_negative() -> None:
    assert lag_of({TP: 10}, {TP: 7}) == {TP: 0}


def test_membership_is_static_and_the_session_short(tmp_path: object) -> None:
    s = load_settings(worker_id="memgate", worker_instance="w1", kafka_session_timeout_s=10)
    conf = membership(s)
    assert conf["consumer_group_instance_id"] == "memgate.w1"
    assert conf["broker_session_timeout"] == 10.0
    assert conf["broker_heartbeat_interval"] <= 10.0 / 3
    off = membership(load_settings(kafka_static_membership=False))
    assert "consumer_group_instance_id" not in off


def test_two_workers_on_one_host_never_share_a_static_instance_id(tmp_path: Path) -> None:
    """Two members under one group.instance.id fence each other and skip events (found by
    tests/faults: a second worker on the same host lost five facts of the first)."""
    a = membership(load_settings(worker_id="memgate", data_dir=tmp_path / "a"))
    b = membership(load_settings(worker_id="memgate", data_dir=tmp_path / "b"))
    again = membership(load_settings(worker_id="memgate", data_dir=tmp_path / "a"))
    assert a["consumer_group_instance_id"] != b["consumer_group_instance_id"]
    assert a["consumer_group_instance_id"] == again["consumer_group_instance_id"]
    assert a["consumer_group_instance_id"].startswith("memgate.")
    off = membership(load_settings(kafka_static_membership=False))
    assert "consumer_group_instance_id" not in off
