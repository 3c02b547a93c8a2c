"""Metrics move when the pipeline runs: decisions, task latency, turn-to-recallable, drain time,
and the relay's backlog and queue-depth gauges."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest
import redis
from celery import Celery
from prometheus_client import REGISTRY
from sqlalchemy import Engine, select

from memwarden_ingest.io import ingest_turns
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.delivery.celery_app import TASK_DECIDE, TASK_EXTRACT, TASK_SYNC_INDEX, Stage
from memwarden_shared.observe import metrics
from memwarden_usecases.pipeline import drain
from tests.conftest import REDIS_URL, turn_dict


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_metrics__a_turn_and_its_revocation_move_every_pipeline_metric(
    sqlite_engine: Engine, tenant: str
) -> None:
    metrics.install_task_timing()
    commits = value("memwarden_gate_decisions_total", decision="COMMIT")
    explicit = value(
        "memwarden_gate_decision_reasons_total", decision="COMMIT", reason="first_person_durable"
    )
    runs = {
        task: value("memwarden_task_duration_seconds_count", task=task, state="SUCCESS")
        for task in (TASK_EXTRACT, TASK_DECIDE, TASK_SYNC_INDEX)
    }
    recallable = value("memwarden_turn_to_recallable_seconds_count", path="auto")
    drained = value("memwarden_revocation_drain_seconds_count", cause="revoked")

    turn = turn_dict(tenant, "I prefer pnpm for all my JavaScript projects.", message_id="m1")
    ingest_turns([Turn.model_validate(turn)], engine=sqlite_engine)
    drain(sqlite_engine)

    assert value("memwarden_gate_decisions_total", decision="COMMIT") == commits + 1
    assert (
        value(
            "memwarden_gate_decision_reasons_total",
            decision="COMMIT",
            reason="first_person_durable",
        )
        == explicit + 1
    )
    for task, before in runs.items():
        assert value("memwarden_task_duration_seconds_count", task=task, state="SUCCESS") > before
    assert value("memwarden_turn_to_recallable_seconds_count", path="auto") == recallable + 1
    # received_at is stamped at ingest, a moment ago: the whole trip took under a minute
    assert value("memwarden_turn_to_recallable_seconds_bucket", path="auto", le="60.0") >= 1

    revoke_message(tenant, "m1", engine=sqlite_engine)
    drain(sqlite_engine)
    assert value("memwarden_revocation_drain_seconds_count", cause="revoked") == drained + 1


def test_metrics__a_redelivered_event_observes_no_second_latency(
    sqlite_engine: Engine, tenant: str
) -> None:
    from memwarden_shared.store.schema import current_memories
    from tests.sink_helpers import sync_memories

    turn = turn_dict(tenant, "我更喜欢深色主题。", message_id="m1")
    ingest_turns([Turn.model_validate(turn)], engine=sqlite_engine)
    drain(sqlite_engine)
    with sqlite_engine.connect() as conn:
        ids = list(conn.execute(current_memories.select()).scalars())
    before = value("memwarden_turn_to_recallable_seconds_count", path="auto")
    assert sync_memories(ids, engine=sqlite_engine)["unchanged"] == len(ids)
    assert value("memwarden_turn_to_recallable_seconds_count", path="auto") == before


def test_metrics__unknown_reason_words_fold_into_other() -> None:
    before = value("memwarden_gate_decision_reasons_total", decision="REJECT", reason="other")
    metrics.record_decision("REJECT", ["Not A Reason!"])
    assert value("memwarden_gate_decision_reasons_total", decision="REJECT", reason="other") == (
        before + 1
    )


def test_metrics__the_relay_sampler_reports_the_backlog_and_its_age(
    sqlite_engine: Engine, tenant: str
) -> None:
    sampler = metrics.RelaySampler(sqlite_engine, None, every=0.0)
    turns = [
        Turn.model_validate(turn_dict(tenant, f"I prefer tool{i}.", message_id=f"m{i}"))
        for i in range(3)
    ]
    ingest_turns(turns, engine=sqlite_engine)
    relayed = value("memwarden_relay_events_total")

    sampler(2)
    assert value("memwarden_outbox_backlog") == 3  # one turn.received row per turn
    assert value("memwarden_outbox_oldest_unsent_age_seconds") >= 0
    assert value("memwarden_relay_events_total") == relayed + 2
    assert value("memwarden_relay_last_round_timestamp_seconds") > 0

    drain(sqlite_engine)
    sampler(0)
    assert value("memwarden_outbox_backlog") == 0
    assert value("memwarden_outbox_oldest_unsent_age_seconds") == 0


def test_metrics__the_sampler_waits_between_samples(sqlite_engine: Engine, tenant: str) -> None:
    now = [100.0]
    sampler = metrics.RelaySampler(sqlite_engine, None, every=5.0, clock=lambda: now[0])
    sampler(0)
    assert value("memwarden_outbox_backlog") == 0
    ingest_turns([Turn.model_validate(turn_dict(tenant, "I prefer vim."))], engine=sqlite_engine)
    now[0] += 1.0
    sampler(0)  # too soon: the gauge keeps its last sample
    assert value("memwarden_outbox_backlog") == 0
    now[0] += 5.0
    sampler(0)
    assert value("memwarden_outbox_backlog") == 1


@pytest.mark.redis
def test_metrics__queue_depth_is_the_length_of_each_stage_list_in_redis() -> None:
    redis.Redis.from_url(REDIS_URL).flushdb()
    # Publish the way the relay does, through Celery, so the list name is Celery's own.
    app = Celery("probe", broker=REDIS_URL)
    try:
        for _ in range(3):
            app.send_task(TASK_DECIDE, args=[[]], queue=Stage.GATE.value)
        app.send_task(TASK_SYNC_INDEX, args=[[]], queue=Stage.VECTOR_SINK.value)
    finally:
        app.close()
    llen = metrics.redis_llen(REDIS_URL)
    assert llen is not None
    metrics.sample_queue_depths(llen)
    assert value("memwarden_queue_depth", queue="gate") == 3
    assert value("memwarden_queue_depth", queue="vector_sink") == 1
    assert value("memwarden_queue_depth", queue="extractor") == 0
    redis.Redis.from_url(REDIS_URL).flushdb()


def test_metrics__other_brokers_have_no_list_reader() -> None:
    assert metrics.redis_llen("amqp://guest@localhost//") is None
    assert metrics.redis_llen("memory://") is None


def test_metrics__serve_exposes_the_registry_and_zero_means_off() -> None:
    assert metrics.serve(0) is None
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = metrics.serve(port)
    assert server is not None
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            body = response.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    assert "memwarden_gate_decisions_total" in body
    assert "memwarden_task_duration_seconds_bucket" in body or "memwarden_task_duration" in body


def test_metrics__the_sampler_reports_delivery_and_stuck_work(
    sqlite_engine: Engine, tenant: str
) -> None:
    from memwarden_extractor.io import extract_batch
    from memwarden_shared.store.schema import outbox

    sampler = metrics.RelaySampler(sqlite_engine, None, every=0.0)
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, "I prefer pnpm for all my JavaScript projects."))],
        engine=sqlite_engine,
    )
    with sqlite_engine.connect() as conn:
        [row] = conn.execute(select(outbox).where(outbox.c.tenant_id == tenant)).all()
    envelope = {
        "id": row.id,
        "topic": row.topic,
        "key": row.event_key,
        "tenant_id": tenant,
        "payload": json.loads(row.payload),
    }
    extract_batch([envelope], engine=sqlite_engine)  # a candidate no gate has decided yet
    sampler(0)
    assert value("memwarden_stuck_work", kind="undecided_candidates") == 1
    assert value("memwarden_delivery", state="unsent") == 1  # the proposal.submitted row
    drain(sqlite_engine)
    metrics.RelaySampler(sqlite_engine, None, every=0.0)(0)
    assert value("memwarden_stuck_work", kind="undecided_candidates") == 0
    assert value("memwarden_stuck_work", kind="current_without_vector") == 0
    assert value("memwarden_delivery", state="overdue") == 0
