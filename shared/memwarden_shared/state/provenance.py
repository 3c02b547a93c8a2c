"""The one rule for "is this memory version still supported?": at least one of the message
revisions recorded as its evidence is active. Recall, the audit and the revalidation cascade
all ask it, so it is written once."""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, exists, func, select

from memwarden_shared.contract.models import MessageStatus
from memwarden_shared.store.dialect import Bind, json_list_agg
from memwarden_shared.store.schema import memory_evidence, messages

_ACTIVE_EVIDENCE = and_(
    messages.c.tenant_id == memory_evidence.c.tenant_id,
    messages.c.message_id == memory_evidence.c.message_id,
    messages.c.revision == memory_evidence.c.revision,
    messages.c.status == MessageStatus.ACTIVE,
)


def supported(memory_id: Any, version: Any) -> Any:
    """``EXISTS`` an active message revision supporting ``(memory_id, version)``."""
    return exists().where(
        memory_evidence.c.memory_id == memory_id,
        memory_evidence.c.version == version,
        _ACTIVE_EVIDENCE,
    )


def supporting_message_ids(bind: Bind, memory_id: Any, version: Any) -> Any:
    """The message ids of the active revisions supporting ``(memory_id, version)``, as a
    scalar subquery returning a JSON list (empty or NULL: the version is not supported), so
    a read gets the rule's answer and the evidence pointers in one statement."""
    return (
        select(json_list_agg(bind, memory_evidence.c.message_id))
        .select_from(memory_evidence.join(messages, _ACTIVE_EVIDENCE))
        .where(memory_evidence.c.memory_id == memory_id, memory_evidence.c.version == version)
        .scalar_subquery()
    )


def active_support_count(memory_id: Any, version: Any) -> Any:
    """How many active message revisions support ``(memory_id, version)`` (a scalar subquery)."""
    return (
        select(func.count())
        .select_from(memory_evidence.join(messages, _ACTIVE_EVIDENCE))
        .where(memory_evidence.c.memory_id == memory_id, memory_evidence.c.version == version)
        .scalar_subquery()
    )
