"""Issue 26.10: relay gauges exist only where a relay runs; the API's backlog is read from
the store at scrape time, never a 0 it did not measure.

Mechanism: the relay's gauges are registered on first use by a relay's sampler
(``metrics.relay_gauges``); the API's ``/metrics`` adds the backlog and delivery names from
``operate.delivery_gauges`` when no relay in its process has registered them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine

from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Role, Source, Turn
from memwarden_shared.observe import metrics
from tests.test_api import api_client

RELAY_ONLY = (
    "memwarden_queue_depth",
    "memwarden_relay_events",
    "memwarden_relay_last_round_timestamp_seconds",
    "memwarden_stuck_work",
)


@pytest.fixture
def process_without_relay() -> Iterator[None]:
    """This test process as an API process: without the gauges an earlier relay test made."""
    made = metrics._relay_gauges
    collectors = list(vars(made).values()) if made else []
    for collector in collectors:
        REGISTRY.unregister(collector)
    try:
        yield
    finally:
        for collector in collectors:
            REGISTRY.register(collector)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_api_metrics__backlog_is_the_stores_and_relay_gauges_are_absent(
    store: Engine, tenant: str, process_without_relay: None, seed: int
) -> None:
    pending = random.Random(seed).randint(1, 7)
    turns = [
        Turn(
            tenant_id=tenant,
            subject_id=f"s{i}",
            session_id="c",
            message_id=f"m{seed}-{i}",
            role=Role.USER,
            source=Source.USER_MESSAGE,
            text="I prefer dark mode in every editor.",
            created_at=datetime(2026, 5, 1, 9, tzinfo=UTC),
        )
        for i in range(pending)
    ]
    with api_client(store) as client:
        before = samples(client.get("/metrics").text)
        ingest_turns(turns, engine=store)  # written, not drained: one unsent row per turn
        after = samples(client.get("/metrics").text)
    backlog = ("memwarden_outbox_backlog", ())
    assert after[backlog] - before[backlog] == pending
    unsent = ("memwarden_delivery", (("state", "unsent"),))
    assert after[unsent] - before[unsent] == pending
    assert not [name for name, _ in after if name.startswith(RELAY_ONLY)]
