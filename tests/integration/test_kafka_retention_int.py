"""Erasure on Kafka: the topics memgate creates are never compacted and delete their
records after ``kafka_retention_hours`` (the documented bound on how long a turn, raw on
the input topic, outlives its erasure). Run by the lead against the real broker."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from memgate.core.settings import load_settings
from memgate.streams.app import ensure_topics, topic_name
from memgate.streams.topology import TOPIC_NAMES

pytestmark = pytest.mark.integration


async def _configs(bootstrap: str, topics: list[str]) -> dict[str, dict[str, str]]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        resources = [ConfigResource(ConfigResourceType.TOPIC, t) for t in topics]
        out: dict[str, dict[str, str]] = {}
        for response in await admin.describe_configs(resources):
            for _, _, _, name, entries in response.resources:
                out[name] = {e[0]: e[1] for e in entries}
        return out
    finally:
        await admin.close()


def test_created_topics_delete_after_the_retention_and_are_not_compacted(
    services: dict[str, str], run_id: str, tmp_path: Path
) -> None:
    settings = load_settings(
        data_dir=tmp_path, kafka_bootstrap=services["kafka"], topic_prefix=run_id,
        kafka_retention_hours=2,
    )  # fmt: skip
    created = asyncio.run(ensure_topics(settings))
    names = [topic_name(settings, n) for n in TOPIC_NAMES]
    assert sorted(created) == sorted(names)
    configs = asyncio.run(_configs(services["kafka"], names))
    for name in names:
        assert configs[name]["cleanup.policy"] == "delete", name
        assert configs[name]["retention.ms"] == str(2 * 3600 * 1000), name
