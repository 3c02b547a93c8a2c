"""A LangGraph ``BaseStore`` whose writes go through memwarden's gate.

    from memwarden import Memory
    from memwarden.integrations.langgraph import GatedStore

    store = GatedStore(Memory())
    store.put(("alice", "memories"), "m1", {"content": "I prefer pnpm for my projects."})
    store.search(("alice", "memories"), query="package manager")

- ``put`` stores the value's text (``content``, ``text`` or ``memory``) as a user turn of the
  namespace's subject and lets the extractor and the gate decide: the store holds what the
  gate committed, not what was put. A put the gate declines leaves nothing to ``get``.
- ``get`` returns the memories the key's puts led to (``value["memories"]``), or None.
- ``search`` is recall: current, committed memories whose evidence is still active.
- ``put(..., None)`` (``delete``) revokes the key's messages: recall drops what they taught.

The subject is the namespace joined with ``:`` unless ``subject_of`` says otherwise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memwarden.client import Memory
from memwarden.errors import InvalidInput, Refused
from memwarden.types import Recalled

TEXT_FIELDS = ("content", "text", "memory")


def _joined(namespace: tuple[str, ...]) -> str:
    return ":".join(namespace)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


class GatedStore(BaseStore):
    """LangGraph's store interface over a :class:`memwarden.Memory` (see the module doc)."""

    def __init__(
        self,
        memory: Memory,
        *,
        subject_of: Callable[[tuple[str, ...]], str] = _joined,
    ) -> None:
        self.memory = memory
        self.subject_of = subject_of
        self._namespaces: set[tuple[str, ...]] = set()  # seen by this process (list_namespaces)

    # -- LangGraph's two abstract methods ---------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return self.batch(ops)  # the client is synchronous; LangGraph accepts this

    def _one(self, op: Op) -> Result:
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return sorted(self._namespaces)[op.offset : op.offset + op.limit]
        raise InvalidInput(f"unsupported store operation {type(op).__name__}", "invalid")

    # -- operations -----------------------------------------------------------------------

    def _key_prefix(self, namespace: tuple[str, ...], key: str) -> str:
        return f"lg-{_digest(*namespace, key)}-"

    def _put(self, op: PutOp) -> None:
        subject = self.subject_of(op.namespace)
        prefix = self._key_prefix(op.namespace, op.key)
        if op.value is None:
            for message_id in self._messages_of(subject, prefix):
                self.memory.revoke(message_id)
            return
        text = _text_of(op.value)
        self._namespaces.add(op.namespace)
        # the same text under the same key is the same message (idempotent); new text under
        # the key is a new message, which the gate weighs against what the key taught before
        try:
            self.memory.add(
                {"message_id": prefix + _digest(text), "role": "user", "content": text},
                subject=subject,
            )
        except Refused as exc:
            # the id is the key and the text: a conflict can only be the timestamp of an
            # earlier put of the same text, which is the same message
            if exc.code != "message_conflict":
                raise

    def _messages_of(self, subject: str, prefix: str) -> list[str]:
        return sorted(
            {
                message_id
                for found in self.memory.recall(subject, None, k=100)
                for message_id in found.evidence_message_ids
                if message_id.startswith(prefix)
            }
        )

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        subject = self.subject_of(namespace)
        prefix = self._key_prefix(namespace, key)
        found = [
            r
            for r in self.memory.recall(subject, None, k=100)
            if any(m.startswith(prefix) for m in r.evidence_message_ids)
        ]
        if not found:
            return None
        now = datetime.now(UTC)
        return Item(
            value={"memories": [_memory(r) for r in found]},
            key=key,
            namespace=namespace,
            created_at=now,
            updated_at=now,
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        subject = self.subject_of(op.namespace_prefix)
        k = max(1, min(100, op.offset + op.limit))
        found = self.memory.recall(subject, op.query, k=k)[op.offset :]
        out = []
        for r in found:
            if op.filter and any(_memory(r).get(f) != v for f, v in op.filter.items()):
                continue
            recorded = datetime.now(UTC)
            out.append(
                SearchItem(
                    namespace=op.namespace_prefix,
                    key=r.memory_id,
                    value=_memory(r),
                    created_at=recorded,
                    updated_at=recorded,
                    score=r.score if op.query else None,
                )
            )
        return out


def _text_of(value: Mapping[str, Any]) -> str:
    for field in TEXT_FIELDS:
        text = value.get(field)
        if isinstance(text, str) and text.strip():
            return text
    raise InvalidInput(
        "a memwarden store value needs its text under 'content', 'text' or 'memory'", "invalid"
    )


def _memory(found: Recalled) -> dict[str, Any]:
    return {
        "memory_id": found.memory_id,
        "version": found.version,
        "kind": found.kind,
        "normalized_key": found.normalized_key,
        "value": found.value,
        "evidence_message_ids": list(found.evidence_message_ids),
        "notice": found.notice,
    }
