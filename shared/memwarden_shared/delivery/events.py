"""An outbox row as the delivery paths hand it on, and the envelope a task receives."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class OutboxEvent:
    id: int
    topic: str
    event_key: str
    tenant_id: str
    payload: dict[str, Any]
    # times published before this claim: more than 0 means a redelivery
    publish_count: int = 0
    ordering_key: str | None = field(default=None)
    ordering_seq: int | None = field(default=None)

    def envelope(self) -> dict[str, Any]:
        """The JSON form a task receives: small, keyed, no conversation text."""
        env: dict[str, Any] = {
            "id": self.id,
            "topic": self.topic,
            "key": self.event_key,
            "tenant_id": self.tenant_id,
            "payload": self.payload,
        }
        if self.ordering_key is not None:
            env["order"] = [self.ordering_key, self.ordering_seq]
        return env


def event_of_row(r: Mapping[Any, Any]) -> OutboxEvent:
    """An outbox row (its column mapping; ``payload`` as stored, JSON text) as an event."""
    return OutboxEvent(
        r["id"],
        r["topic"],
        r["event_key"],
        r["tenant_id"],
        json.loads(r["payload"]),
        int(r["publish_count"] or 0),
        r["ordering_key"],
        r["ordering_seq"],
    )
