"""The four stages and the relay as separate OS processes on PostgreSQL + Redis."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from sqlalchemy import select

from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.store.db import engine_for
from memwarden_shared.store.schema import memory_versions, vector_index
from tests.conftest import REDIS_URL, turn_dict

STAGES = ["extractor", "gate", "revalidation", "vector_sink"]


@pytest.fixture
def pipeline_processes(fresh_pg_url: str, tmp_path: Path) -> Iterator[str]:
    redis.Redis.from_url(REDIS_URL).flushdb()
    env = {
        **os.environ,
        "MEMWARDEN_DATABASE_URL": fresh_pg_url,
        "MEMWARDEN_BROKER_URL": REDIS_URL,
        "MEMWARDEN_RELAY_POLL_SECONDS": "0.05",
        "MEMWARDEN_LOG_LEVEL": "INFO",
    }
    procs = []
    for args in [["worker", s] for s in STAGES] + [["relay"]]:
        log = (tmp_path / f"{'-'.join(args)}.log").open("w")
        procs.append(
            (
                subprocess.Popen(
                    [sys.executable, "-m", "memwarden.cli", *args],
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                ),
                log,
            )
        )
    try:
        yield fresh_pg_url
    finally:
        for proc, _ in procs:
            proc.terminate()
        for proc, log in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()  # reap it: no zombie, no Popen ResourceWarning
            log.close()
        for path in sorted(tmp_path.glob("*.log")):
            sys.stderr.write(f"--- {path.name}\n{path.read_text()[-3000:]}\n")


def wait_for(condition: Callable[[], bool], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_distributed__turns_become_indexed_memories_and_a_revocation_removes_one(
    pipeline_processes: str,
) -> None:
    engine = engine_for(pipeline_processes)
    tenant = "dist"
    turns = [
        Turn.model_validate(turn_dict(tenant, text, message_id=mid, created_at=at))
        for mid, text, at in [
            ("m1", "I prefer pnpm for all my JavaScript projects.", "2026-05-01T09:00:00Z"),
            ("m2", "请记住，我喜欢简洁直接的回答。", "2026-05-01T09:01:00Z"),
            ("m3", "My colleague lives in Beijing.", "2026-05-01T09:02:00Z"),
            ("m4", "我更喜欢深色主题。", "2026-05-01T09:03:00Z"),
        ]
    ]
    ingest_turns(turns, engine=engine)

    def indexed() -> set[str]:
        with engine.connect() as conn:
            return set(
                conn.execute(
                    select(vector_index.c.memory_id).where(vector_index.c.tenant_id == tenant)
                ).scalars()
            )

    wait_for(lambda: len(indexed()) == 3)
    values = sorted(str(m.value) for m in recall(tenant, "u1", engine=engine))
    assert "pnpm" in values and "dark" in values
    assert not any("Beijing" in v for v in values)

    pnpm = next(m for m in recall(tenant, "u1", engine=engine) if m.value == "pnpm")
    revoke_message(tenant, "m1", engine=engine)
    # Protected empty: gone from recall the moment the revocation commits.
    assert "pnpm" not in [m.value for m in recall(tenant, "u1", engine=engine)]
    wait_for(lambda: pnpm.memory_id not in indexed())
    with engine.connect() as conn:
        status = conn.execute(
            select(memory_versions.c.status).where(memory_versions.c.memory_id == pnpm.memory_id)
        ).scalar_one()
    assert status == "revoked"
    assert len(indexed()) == 2
    engine.dispose()


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.redis
def test_distributed__a_canary_revoked_under_early_duplicated_events_leaves_no_trace(
    pipeline_processes: str,
) -> None:
    from sqlalchemy import insert

    from memwarden_gate.io import decide_batch
    from memwarden_shared.contract.canonical import proposal_id, proposal_identity, sha256_hex
    from memwarden_shared.store.schema import current_memories, outbox
    from memwarden_shared.text.embedding import default_embedder, from_bytes
    from memwarden_usecases.audit import audit

    engine = engine_for(pipeline_processes)
    tenant = "canary"
    canary = "Remember that our canary phrase is zebra-quartz-lantern."
    turns = [
        Turn.model_validate(
            turn_dict(tenant, text, message_id=mid, created_at=f"2026-05-01T09:0{i}:00Z")
        )
        for i, (mid, text) in enumerate(
            [("c1", canary), ("c2", "I prefer bun."), ("c3", "我更喜欢深色主题。")]
        )
    ]
    ingest_turns(turns[:1], engine=engine, extract=False)
    ingest_turns(turns[1:], engine=engine)
    sentence = canary
    proposal: dict[str, Any] = {
        "tenant_id": tenant,
        "subject_id": "u1",
        "scope": {"kind": "user", "key": "u1"},
        "kind": "preference",
        "normalized_key": "preference.note",
        "stable_candidate_ordinal": 0,
        "value": "our canary phrase is zebra-quartz-lantern",
        "evidence": {
            "message_id": "c1",
            "start": 0,
            "end": len(sentence),
            "sha256": sha256_hex(sentence),
        },
        "extractor_version": "ext-1",
        "confidence": 0.9,
        "expires_at": None,
    }
    proposal["proposal_id"] = proposal_id(
        proposal_identity(
            tenant_id=tenant,
            subject_id="u1",
            scope=proposal["scope"],
            kind="preference",
            normalized_key="preference.note",
            message_id="c1",
            start=0,
            end=len(sentence),
            stable_candidate_ordinal=0,
            extractor_version="ext-1",
        )
    )
    [receipt] = decide_batch([proposal], engine=engine)
    assert receipt.decision == "COMMIT"
    revoke_message(tenant, "c1", engine=engine)  # usually before the sink saw the commit
    with engine.begin() as conn:  # a relay that publishes everything twice
        rows = conn.execute(select(outbox).where(outbox.c.tenant_id == tenant)).all()
        conn.execute(
            insert(outbox),
            [
                {
                    "topic": r.topic,
                    "event_key": r.event_key,
                    "tenant_id": r.tenant_id,
                    "payload": r.payload,
                    "created_at": r.created_at,
                }
                for r in rows
            ],
        )

    def settled() -> bool:
        report = audit(tenant, engine=engine)
        return report.clean and report.checked["vector_rows"] == 2

    wait_for(settled)
    # later events from the duplicated extraction must not bring it back either
    time.sleep(1.0)
    assert audit(tenant, engine=engine).clean
    values = [str(m.value) for m in recall(tenant, "u1", "canary phrase zebra", engine=engine)]
    assert not any("zebra" in v for v in values)
    probe = default_embedder().embed_one("preference note canary phrase zebra-quartz-lantern")
    with engine.connect() as conn:
        rows = conn.execute(select(vector_index.c.memory_id, vector_index.c.embedding)).all()
        projection = (
            conn.execute(
                select(current_memories.c.value_json).where(current_memories.c.tenant_id == tenant)
            )
            .scalars()
            .all()
        )
        canary_ids = set(
            conn.execute(
                select(memory_versions.c.memory_id).where(
                    memory_versions.c.tenant_id == tenant,
                    memory_versions.c.value_json.like("%zebra%"),
                )
            ).scalars()
        )
    assert canary_ids  # it was committed before the revocation reached it
    nearest = sorted(rows, key=lambda r: -float(from_bytes(r.embedding) @ probe))[:5]
    assert not canary_ids & {r.memory_id for r in nearest}
    assert not canary_ids & {r.memory_id for r in rows}
    assert not any("zebra" in p for p in projection)
    engine.dispose()
