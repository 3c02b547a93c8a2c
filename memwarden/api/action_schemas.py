"""Bodies of the action gate's HTTP routes (SPEC §14); they make the OpenAPI document. The
receipt itself is the client's :class:`memwarden.types.ActionReceipt`."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from memwarden.api.schemas import HEX64, Body
from memwarden.types import ActionReceipt
from memwarden_usecases.act import INTENT_PATTERN, USES_PATTERN


class ActionIn(Body):
    """An action request; the tenant is the caller's."""

    subject_id: str = Field(min_length=1, max_length=200)
    intent: str = Field(pattern=INTENT_PATTERN, max_length=100, description="e.g. email.send")
    params: dict[str, Any] = Field(default_factory=dict)
    uses: list[str] = Field(
        default_factory=list,
        max_length=50,
        description="memory_id or memory_id:version the agent relies on",
        json_schema_extra={"items": {"type": "string", "pattern": USES_PATTERN}},
    )
    idempotency_key: str = Field(min_length=1, max_length=200)
    purpose: str | None = Field(default=None, min_length=1, max_length=100)


class ActionsOut(BaseModel):
    actions: list[ActionReceipt]


class ApproveActionIn(Body):
    request_hash: str = Field(pattern=HEX64, description="the receipt's request_hash")


class OutcomeIn(Body):
    status: Literal["executed", "failed", "cancelled"]
    external_ref: str | None = Field(default=None, min_length=1, max_length=500)


class PendingActionOut(ActionReceipt):
    params: dict[str, Any] = Field(description="shown to approvers: what would be done")


class PendingActionsOut(BaseModel):
    actions: list[PendingActionOut]


class AffectedMemoryOut(BaseModel):
    memory_id: str
    version: int
    subject_id: str
    normalized_key: str
    status: str
    status_reason: str | None
    via: str = Field(description="evidence (cites the message) | derived (from one that does)")


class RepairActionOut(ActionReceipt):
    owner: str = Field(description="the principal that requested the action")
    external_ref: str | None


class RepairListOut(BaseModel):
    tenant_id: str
    message_id: str
    memories: list[AffectedMemoryOut]
    actions: list[RepairActionOut]
    needs_repair: int
    cancelled: int
