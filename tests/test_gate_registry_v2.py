"""Registry v2 through the real gate and store (both backends): new keys, a sensitive diet
held for the owner, a dated event that expires after its day, and tenant-defined keys."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from memwarden_gate.io import decide_batch
from memwarden_gate.records import GateContext
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Receipt, Turn
from memwarden_shared.contract.registry import default_registry
from memwarden_shared.store.db import as_utc
from memwarden_shared.store.schema import current_memories
from tests.conftest import turn_dict

BUILT_IN = default_registry().version
TRACKER = "preference.x_ticket_system"


def decide(
    store: Engine,
    tenant: str,
    make_proposal: Callable[..., dict[str, Any]],
    text: str,
    key: str,
    value: str,
    *,
    created_at: str = "2026-05-01T09:00:00Z",
    ctx: GateContext | None = None,
    **overrides: Any,
) -> Receipt:
    message_id = "m-" + key.replace(".", "-")
    turn = turn_dict(tenant, text, message_id=message_id, created_at=created_at)
    ingest_turns([Turn.model_validate(turn)], engine=store, extract=False)
    proposal = make_proposal(
        tenant,
        message_id,
        text,
        normalized_key=key,
        value=value,
        kind=key.split(".")[0],
        **overrides,
    )
    return decide_batch([proposal], engine=store, ctx=ctx)[0]


def expiry_of(store: Engine, tenant: str, memory_id: str) -> dt.datetime | None:
    with store.connect() as conn:
        stored: dt.datetime | None = conn.execute(
            select(current_memories.c.expires_at).where(
                current_memories.c.tenant_id == tenant,
                current_memories.c.memory_id == memory_id,
            )
        ).scalar_one()
    return as_utc(stored)


def test_gate_v2__a_tool_preference_commits_with_the_registry_version(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = decide(
        store,
        tenant,
        make_proposal,
        "我喜欢用 PostgreSQL 做数据库。",
        "preference.database",
        "PostgreSQL",
    )
    assert receipt.decision == "COMMIT", receipt.reasons
    assert receipt.registry_version == BUILT_IN


def test_gate_v2__a_language_variant_commits_as_its_tag(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = decide(
        store,
        tenant,
        make_proposal,
        "Always reply in British English.",
        "preference.language",
        "en-GB British English 英式英语",
    )
    assert receipt.decision == "COMMIT", receipt.reasons


def test_gate_v2__a_diet_is_sensitive_and_waits_for_the_owner(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = decide(store, tenant, make_proposal, "请记住，我不吃辣。", "profile.diet", "不吃辣")
    assert receipt.decision == "NEEDS_CONFIRMATION", receipt.reasons
    assert "sensitive_key" in receipt.reasons and receipt.memory_id is None


def test_gate_v2__an_event_expires_after_its_day_whatever_the_proposal_said(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = decide(
        store,
        tenant,
        make_proposal,
        "Remember that the design review is the day after tomorrow at 10am.",
        "task_fact.event",
        "2026-03-06 10:00 design review",
        created_at="2026-03-04T09:00:00+08:00",
        expires_at="2030-01-01T00:00:00Z",
    )
    assert receipt.decision == "COMMIT" and receipt.memory_id, receipt.reasons
    # the end of 2026-03-06 in +08:00, plus the key's 24 h grace
    expected = dt.datetime(2026, 3, 6, 16, 0, tzinfo=dt.UTC) + dt.timedelta(hours=24)
    assert expiry_of(store, tenant, receipt.memory_id) == expected


def test_gate_v2__an_event_merely_mentioned_is_not_kept(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    receipt = decide(
        store,
        tenant,
        make_proposal,
        "The design review is the day after tomorrow at 10am.",
        "task_fact.event",
        "2026-03-06 10:00 design review",
        created_at="2026-03-04T09:00:00+08:00",
    )
    assert receipt.decision == "REJECT" and "not_durable" in receipt.reasons


def _tenant_dir(tmp_path: Path, tenant: str, body: bytes | None = None) -> Path:
    entry = {
        "kind": "preference",
        "normalized_key": TRACKER,
        "value": {"type": "text", "max_length": 80},
        "sensitivity": "normal",
        "scopes": ["user"],
        "retrieval_purposes": ["coding_assistance"],
        "prohibited_actions": [],
    }
    default = {"tenant_id": tenant, "registry_version": "t-1", "keys": [entry]}
    (tmp_path / f"{tenant}.json").write_bytes(body or json.dumps(default).encode())
    return tmp_path


@pytest.mark.spans_tenants  # decides for two tenants, as the gate stage does
def test_gate_v2__a_tenant_key_is_known_to_its_tenant_only(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    ctx = GateContext(tenant_registry=_tenant_dir(tmp_path, tenant))
    text = "Remember that I use Linear as my ticket system."
    mine = decide(store, tenant, make_proposal, text, TRACKER, "Linear", ctx=ctx)
    assert mine.decision == "COMMIT", mine.reasons
    assert mine.registry_version is not None
    assert mine.registry_version.startswith(BUILT_IN + "+t-1#")
    theirs = decide(store, tenant + "-b", make_proposal, text, TRACKER, "Linear", ctx=ctx)
    assert theirs.decision == "REJECT" and "unknown_key" in theirs.reasons
    assert theirs.registry_version == BUILT_IN


def test_gate_v2__an_invalid_tenant_file_refuses_its_keys_not_the_built_ins(
    store: Engine, tenant: str, make_proposal: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    ctx = GateContext(tenant_registry=_tenant_dir(tmp_path, tenant, b'{"tenant_id": 1}'))
    text = "Remember that I use Linear as my ticket system."
    refused = decide(store, tenant, make_proposal, text, TRACKER, "Linear", ctx=ctx)
    assert refused.decision == "REJECT" and "unknown_key" in refused.reasons
    assert refused.registry_version == BUILT_IN + "+invalid"
    kept = decide(
        store,
        tenant,
        make_proposal,
        "I always use pnpm.",
        "preference.package_manager",
        "pnpm",
        ctx=ctx,
    )
    assert kept.decision == "COMMIT", kept.reasons
