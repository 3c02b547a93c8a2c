"""mem0's result shapes built from the gate's own records (pure functions, no I/O).

``Memory.add`` / ``search`` / ``get_all`` / ``get`` / ``delete`` / ``history`` speak mem0's
dialect (docs/api.md, "mem0-compatible calls"); what they say is always what the gate
decided: an entry's ``decision`` and ``reasons`` are the receipt's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from memwarden.types import Added, Decided, HistoryEntry, MemoryItem, Recalled, Receipt

COMMITTED = "committed"
LEFT_RECALL = frozenset({"revoked", "forgotten"})  # deleted, in mem0's word


def as_text(key: str, value: Any) -> str:
    """A memory's value as the one line mem0 calls ``memory``."""
    if isinstance(value, str):
        return value
    return f"{key}: {json.dumps(value, ensure_ascii=False, sort_keys=True)}"


def added(decided: Decided) -> Added:
    committed = decided.state == COMMITTED and decided.memory_id is not None
    event = ("ADD" if decided.memory_version == 1 else "UPDATE") if committed else "NONE"
    return Added(
        id=decided.memory_id,
        memory=as_text(decided.normalized_key, decided.value),
        event=event,
        decision=decided.decision,
        reasons=list(decided.reasons),
        proposal_id=decided.proposal_id,
        message_id=decided.message_id,
    )


def item(found: Recalled, subject: str, *, scored: bool) -> MemoryItem:
    return MemoryItem(
        id=found.memory_id,
        memory=as_text(found.normalized_key, found.value),
        user_id=subject,
        score=found.score if scored else None,
        version=found.version,
        kind=found.kind,
        normalized_key=found.normalized_key,
        value=found.value,
        metadata={
            "scope": found.scope.model_dump(),
            "expires_at": found.expires_at,
            "evidence_message_ids": list(found.evidence_message_ids),
        },
        notice=found.notice,
    )


def history(
    versions: Iterable[Mapping[str, Any]], receipts: Mapping[str, Receipt]
) -> list[HistoryEntry]:
    """mem0's history, oldest first: ADD for a first version, UPDATE for a later one, and
    a DELETE after a version that left recall (revoked, forgotten); each entry carries the
    receipt of the gate decision that wrote the version."""
    out: list[HistoryEntry] = []
    previous: str | None = None
    for v in versions:
        text = None if v["value"] is None else as_text(v["normalized_key"], v["value"])
        written = "ADD" if v["version"] == 1 else "UPDATE"
        events = [written, "DELETE"] if v["status"] in LEFT_RECALL else [written]
        for event in events:
            out.append(
                HistoryEntry(
                    id=f"{v['memory_id']}:{v['version']}",
                    memory_id=v["memory_id"],
                    version=v["version"],
                    event=event,
                    old_memory=previous if event != "DELETE" else text,
                    new_memory=text if event != "DELETE" else None,
                    status=v["status"],
                    status_reason=v.get("status_reason"),
                    current=v["current"],
                    is_deleted=event == "DELETE",
                    created_at=v["recorded_at"],
                    updated_at=v["expired_at"] or v["recorded_at"],
                    receipt=receipts.get(v["proposal_id"]),
                )
            )
        previous = text
    return out
