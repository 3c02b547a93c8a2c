"""What an agent sends to the action gate (SPEC §14), and the hashes the gate binds to it."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memwarden_shared.contract.canonical import jcs, sha256_hex

USES_PATTERN = r"^mem_[0-9a-f]{32}(?::[1-9][0-9]{0,8})?$"
INTENT_PATTERN = r"^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+$"


class ActionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant_id: str = Field(min_length=1, max_length=200)
    subject_id: str = Field(min_length=1, max_length=200)
    intent: str = Field(pattern=INTENT_PATTERN, max_length=100)
    params: dict[str, Any] = Field(default_factory=dict)
    uses: list[str] = Field(default_factory=list, max_length=50)
    idempotency_key: str = Field(min_length=1, max_length=200)
    purpose: str | None = Field(default=None, min_length=1, max_length=100)

    @field_validator("uses")
    @classmethod
    def uses_names(cls, uses: list[str]) -> list[str]:
        for name in uses:
            if not re.match(USES_PATTERN, name):
                raise ValueError("uses takes memory_id or memory_id:version")
        if len({n.split(":")[0] for n in uses}) != len(uses):
            raise ValueError("uses names the same memory twice")
        return uses

    @field_validator("params")
    @classmethod
    def params_canonical(cls, params: dict[str, Any]) -> dict[str, Any]:
        try:  # the hashes below need RFC 8785 JSON: no NaN, integers within 2^53
            jcs(params)
        except Exception as exc:  # rfc8785 raises several types; all mean "not hashable"
            raise ValueError("params must be JSON that RFC 8785 can canonicalise") from exc
        return params


def key_hash(intent: str, params: dict[str, Any]) -> str:
    """What an idempotency key is bound to: the intent and its parameters, not the turn."""
    return sha256_hex(jcs({"intent": intent, "params": params}))


def request_hash(intent: str, params: dict[str, Any], uses: list[str]) -> str:
    """What an approval is bound to: intent, parameters and the exact memory versions read."""
    return sha256_hex(jcs({"intent": intent, "params": params, "uses": sorted(uses)}))
