"""Small builders for action-gate tests: say something, find the memory it became, act on it."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Engine, select

from memwarden_actions.io import request_action
from memwarden_actions.request import ActionRequest
from memwarden_ingest.io import ingest_turns
from memwarden_shared.contract.models import Turn
from memwarden_shared.state.auth import Principal, Scope
from memwarden_shared.store.db import unit_of_work
from memwarden_shared.store.schema import memory_evidence, memory_versions
from memwarden_usecases.pipeline import drain
from tests.conftest import turn_dict

AGENT = "agent-1"
APPROVER = "approver-1"


def agent(tenant: str, *scopes: Scope, principal_id: str = AGENT) -> Principal:
    return Principal(principal_id, tenant, frozenset(scopes or {Scope.ACTION_REQUEST}))


def approver(tenant: str, principal_id: str = APPROVER) -> Principal:
    return Principal(principal_id, tenant, frozenset({Scope.ACTION_APPROVE}))


def say(engine: Engine, tenant: str, text: str, *, message_id: str | None = None, **kw: Any) -> str:
    message_id = message_id or "m-" + uuid.uuid4().hex[:8]
    ingest_turns(
        [Turn.model_validate(turn_dict(tenant, text, message_id=message_id, **kw))], engine=engine
    )
    drain(engine)
    return message_id


def memory_of(engine: Engine, tenant: str, message_id: str) -> tuple[str, int]:
    """The newest memory version citing ``message_id``."""
    with unit_of_work(engine) as uow:
        row = uow.conn.execute(
            select(memory_evidence.c.memory_id, memory_evidence.c.version)
            .where(
                memory_evidence.c.tenant_id == tenant, memory_evidence.c.message_id == message_id
            )
            .order_by(memory_evidence.c.version.desc())
        ).first()
    assert row is not None, f"no memory cites {message_id}"
    return row.memory_id, row.version


def status_of(engine: Engine, memory_id: str, version: int) -> str:
    with unit_of_work(engine) as uow:
        return str(
            uow.conn.execute(
                select(memory_versions.c.status).where(
                    memory_versions.c.memory_id == memory_id,
                    memory_versions.c.version == version,
                )
            ).scalar_one()
        )


def act(
    engine: Engine,
    tenant: str,
    intent: str,
    uses: list[str],
    *,
    params: dict[str, Any] | None = None,
    key: str | None = None,
    principal: Principal | None = None,
    **kw: Any,
) -> dict[str, Any]:
    req = ActionRequest(
        tenant_id=tenant,
        subject_id=kw.pop("subject", "u1"),
        intent=intent,
        params=params if params is not None else {"x": 1},
        uses=uses,
        idempotency_key=key or "k-" + uuid.uuid4().hex[:8],
        **kw,
    )
    return request_action(req, principal or agent(tenant), engine=engine)
