"""``Memory``: memwarden from Python, on whichever backend the constructor names (SPEC §16)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from memwarden import _mem0
from memwarden.errors import InvalidInput, NotFound
from memwarden.types import (
    ActionReceipt,
    AddResult,
    Deleted,
    Forgotten,
    HistoryEntry,
    Memories,
    MemoryItem,
    MemoryProposal,
    MemoryVersion,
    Pending,
    Provenance,
    Recalled,
    Receipt,
    Reviewed,
    Revoked,
    TurnInput,
)
from memwarden_shared.contract.models import safe_error_fields

TurnLike = TurnInput | Mapping[str, Any] | str


class _Backend(Protocol):
    embedded: bool
    tenant: str

    def add(self, turns: list[TurnInput], *, extract: bool) -> AddResult: ...
    def propose(self, proposals: list[dict[str, Any]]) -> list[Receipt]: ...
    def recall(self, subject: str, query: str | None, k: int) -> list[Recalled]: ...
    def memories(self, subject: str) -> list[MemoryVersion]: ...
    def why(self, memory_id: str) -> Provenance: ...
    def revoke(self, message_id: str) -> Revoked: ...
    def forget(self, message_id: str) -> Forgotten: ...
    def pending(self, limit: int) -> list[Pending]: ...
    def approve(self, proposal_id: str, payload_hash: str) -> Reviewed: ...
    def reject(self, proposal_id: str) -> Reviewed: ...
    def act(self, request: dict[str, Any]) -> ActionReceipt: ...
    def reject_memory(self, memory_id: str) -> int: ...
    def versions(self, memory_id: str) -> list[dict[str, Any]]: ...
    def receipt(self, proposal_id: str) -> Receipt | None: ...
    def close(self) -> None: ...


class Memory:
    """A memory write gate for one tenant.

    Backends, chosen by the arguments:

    - ``Memory()`` or ``Memory(data_dir=…)``: **embedded**. SQLite in ``data_dir`` (default
      ``MEMWARDEN_DATA_DIR``, else ``~/.memwarden``), migrated automatically; the pipeline
      runs in this process, so :meth:`add` returns the gate's decisions.
    - ``Memory(database_url=…, broker_url=…)``: **distributed**. Writes commit the state and
      outbox rows; the relay and the stage workers do the rest. The schema must already be
      at head (``memwarden migrate``). Without ``broker_url`` the pipeline runs in-process
      over that database, as in embedded mode.
    - ``Memory(api_url=…, api_key=…)``: **remote**, over the HTTP API; the tenant is the
      key's.

    Without ``api_key`` the in-process backends act as a local principal holding
    ``memory:admin`` in ``tenant`` (whoever holds the database holds that power anyway);
    with one, they act as that principal and check its scopes.

    mem0's calls work unchanged (``add(messages, user_id=…)``, ``search``, ``get_all``,
    ``get``, ``delete``, ``history``), each through the gate: what they return carries the
    gate's decisions and receipts (docs/api.md, "mem0-compatible calls").

    Errors: :class:`memwarden.NotFound`, :class:`memwarden.Refused`,
    :class:`memwarden.Unauthorized`, :class:`memwarden.Unavailable`,
    :class:`memwarden.InvalidInput` (all :class:`memwarden.MemwardenError`, with a
    ``code``; none quotes a value the caller passed).
    """

    def __init__(
        self,
        *,
        data_dir: str | Path | None = None,
        database_url: str | None = None,
        broker_url: str | None = None,
        api_url: str | None = None,
        api_key: str | None = None,
        tenant: str = "default",
        timeout: float = 30.0,
    ) -> None:
        self._backend: _Backend
        if api_url:
            if database_url or data_dir:
                raise InvalidInput(
                    "api_url cannot be combined with database_url or data_dir", "invalid"
                )
            from memwarden._remote import RemoteBackend

            self._backend = RemoteBackend(api_url, api_key or "", timeout=timeout)
            return
        from memwarden._local import LocalBackend, sqlite_url
        from memwarden_shared.config import get_settings

        if database_url and data_dir:
            raise InvalidInput("database_url and data_dir name two different stores", "invalid")
        url = database_url or sqlite_url(Path(data_dir or get_settings().data_dir))
        self._backend = LocalBackend(url, tenant=tenant, embedded=not broker_url, api_key=api_key)

    @property
    def tenant(self) -> str:
        return self._backend.tenant

    @property
    def embedded(self) -> bool:
        """True when the pipeline runs in this process before a write returns."""
        return self._backend.embedded

    def add(
        self,
        turns: TurnLike | Iterable[TurnLike],
        *,
        subject: str | None = None,
        extract: bool = True,
        user_id: str | None = None,
        agent_id: str | None = None,
        run_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        infer: bool | None = None,
    ) -> AddResult:
        """Store one turn or many: a :class:`TurnInput`, a dict in the one turn format
        (``{"role", "content"}`` messages included), or plain text. Idempotent by message
        id; the same id with other content refuses the whole batch (:class:`Refused`).

        ``extract=False`` stores evidence only, for an external extractor that will
        :meth:`propose`. mem0's arguments: ``user_id`` (or ``agent_id``) is the subject,
        ``run_id`` the session, ``infer`` is ``extract``; ``metadata`` must be a mapping and
        is not stored (memwarden keeps evidence, not annotations; docs/decisions.md). The
        result's ``results`` lists each candidate with mem0's ``event`` and the gate's
        ``decision`` and ``reasons``."""
        who = _one_subject(subject, user_id, agent_id)
        if metadata is not None and not isinstance(metadata, Mapping):
            raise InvalidInput("metadata must be a mapping", "invalid")
        if infer is not None:
            extract = infer
        result = self._backend.add(_turns(turns, who, run_id), extract=extract)
        added = [_mem0.added(d) for d in result.decisions or ()]
        return result.model_copy(update={"results": added})

    def propose(
        self, proposals: MemoryProposal | Mapping[str, Any] | Iterable[Any]
    ) -> list[Receipt]:
        """Send MemoryProposals (SPEC §4) from an external extractor to the gate; one receipt
        each, in order, REJECT included. A proposal naming another tenant is refused."""
        if isinstance(proposals, (BaseModel, Mapping)):
            proposals = [proposals]
        return self._backend.propose([_as_dict(p) for p in proposals])

    def recall(self, subject: str, query: str | None = None, k: int = 10) -> list[Recalled]:
        """The subject's recallable memories, best first (current, committed, evidence still
        active, not expired)."""
        if not 1 <= k <= 100:
            raise InvalidInput("k must be between 1 and 100", "invalid")
        return self._backend.recall(subject, query, k)

    # -- mem0's calls ----------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 100,
        **_unused: Any,
    ) -> Memories:
        """mem0's ``search``: the subject's recallable memories most relevant to ``query``
        (recall: current, committed, evidence active, not expired), at most ``limit``."""
        who = _required_subject(user_id, agent_id)
        found = self.recall(who, query, k=_limit(limit))
        return Memories(results=[_mem0.item(f, who, scored=True) for f in found])

    def get_all(
        self,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        limit: int = 100,
        **_unused: Any,
    ) -> Memories:
        """mem0's ``get_all``: the subject's recallable memories, newest first."""
        who = _required_subject(user_id, agent_id)
        found = self.recall(who, None, k=_limit(limit))
        return Memories(results=[_mem0.item(f, who, scored=False) for f in found])

    def get(self, memory_id: str) -> MemoryItem | None:
        """mem0's ``get``: the memory's recallable version, or None (as mem0 answers) when
        there is none: unknown, deleted, or its evidence revoked."""
        try:
            versions = self._backend.versions(memory_id)
        except NotFound:
            return None
        current = [v for v in versions if v["current"]]
        if not current:
            return None
        subject = str(current[-1]["subject_id"])
        for found in self._backend.recall(subject, None, 100):
            if found.memory_id == memory_id:
                return _mem0.item(found, subject, scored=False)
        return None

    def delete(self, memory_id: str) -> Deleted:
        """mem0's ``delete``: the owner rejects the memory; its current version leaves
        recall at once (history keeps it, status ``revoked``). :class:`NotFound` when it has
        no recallable version. To erase what a message taught, use :meth:`forget`."""
        version = self._backend.reject_memory(memory_id)
        versions = self._backend.versions(memory_id)
        committed_by = next((v["proposal_id"] for v in versions if v["version"] == version), None)
        return Deleted(
            message="Memory deleted successfully!",
            memory_id=memory_id,
            version=version,
            status="revoked",
            receipt=self._backend.receipt(committed_by) if committed_by else None,
        )

    def history(self, memory_id: str) -> list[HistoryEntry]:
        """mem0's ``history``: every version of the memory, oldest first, each with the
        receipt of the gate decision that wrote it. :class:`NotFound` for an unknown id."""
        versions = self._backend.versions(memory_id)
        receipts = {}
        for proposal_id in dict.fromkeys(v["proposal_id"] for v in versions):
            receipt = self._backend.receipt(proposal_id)
            if receipt is not None:
                receipts[proposal_id] = receipt
        return _mem0.history(versions, receipts)

    def memories(self, subject: str) -> list[MemoryVersion]:
        """Every version of the subject's memories, history included, oldest first."""
        return self._backend.memories(subject)

    def why(self, memory_id: str) -> Provenance:
        """Where the memory came from (proposer, producer version, evidence quotes with
        message ids), every decision and receipt, who approved it, what it was derived from
        and what used or read it, and the exact commands that take it back."""
        return self._backend.why(memory_id)

    def revoke(self, message_id: str) -> Revoked:
        """Revoke a source message: from this call on, recall returns nothing it supports."""
        return self._backend.revoke(message_id)

    def forget(self, message_id: str) -> Forgotten:
        """Forget what a message taught; only a normalised content hash is kept, so the same
        claim is not learnt again (paraphrases are)."""
        return self._backend.forget(message_id)

    def pending(self, limit: int = 100) -> list[Pending]:
        """Candidates awaiting an owner's confirmation, most confident first."""
        return self._backend.pending(limit)

    def approve(self, proposal_id: str, payload_hash: str) -> Reviewed:
        """Commit the frozen candidate, bound to the payload hash the reviewer saw."""
        return self._backend.approve(proposal_id, payload_hash)

    def reject(self, proposal_id: str) -> Reviewed:
        """Withdraw a pending candidate."""
        return self._backend.reject(proposal_id)

    def act(
        self,
        subject: str,
        intent: str,
        params: dict[str, Any] | None = None,
        *,
        idempotency_key: str,
        uses: Iterable[str] = (),
        purpose: str | None = None,
    ) -> ActionReceipt:
        """Ask the action gate before a side effect (SPEC §14): ``uses`` names the memories
        (``mem_…`` or ``mem_…:version``) the agent relies on. Act only when the receipt's
        decision is ``ALLOW``; the same key again returns ``DUPLICATE``, the same key with
        other params raises :class:`Refused` (``key_conflict``), as does an unknown intent
        (``unknown_intent``) or an invalid request (``invalid``)."""
        request = {
            "subject_id": subject,
            "intent": intent,
            "params": dict(params or {}),
            "uses": list(uses),
            "idempotency_key": idempotency_key,
            "purpose": purpose,
        }
        return self._backend.act(request)

    def close(self) -> None:
        self._backend.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _one_subject(subject: str | None, user_id: str | None, agent_id: str | None) -> str | None:
    """``subject``, ``user_id`` (mem0) and ``agent_id`` (mem0: an agent's own memory) name
    the same thing; two different names refuse the call."""
    named = {n for n in (subject, user_id, agent_id) if n is not None}
    if len(named) > 1:
        raise InvalidInput("subject, user_id and agent_id name different subjects", "invalid")
    return named.pop() if named else None


def _required_subject(user_id: str | None, agent_id: str | None) -> str:
    who = _one_subject(None, user_id, agent_id)
    if who is None:
        raise InvalidInput("name whose memories: user_id= (or agent_id=)", "invalid")
    return who


def _limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 100:
        raise InvalidInput("limit must be an integer between 1 and 100", "invalid")
    return limit


def _turns(
    turns: TurnLike | Iterable[TurnLike], subject: str | None, session: str | None = None
) -> list[TurnInput]:
    """Every form :meth:`Memory.add` takes, as the one turn format; a malformed turn is
    :class:`InvalidInput` naming its index, fields and rules (never its text)."""
    if isinstance(turns, (str, TurnInput, Mapping)):
        turns = [turns]
    out = []
    for index, turn in enumerate(turns):
        if isinstance(turn, TurnInput):
            out.append(turn)
            continue
        if isinstance(turn, str):
            data: dict[str, Any] = {"text": turn}
        elif isinstance(turn, Mapping):
            data = dict(turn)
        else:
            raise InvalidInput(f"turn {index}: expected text, a mapping or a TurnInput", "invalid")
        if subject is not None and "user_id" not in data:
            data.setdefault("subject_id", subject)
        if session is not None:
            data.setdefault("session_id", session)
        try:
            out.append(TurnInput.model_validate(data))
        except ValidationError as exc:
            fields = "; ".join(safe_error_fields(exc))
            hint = " (plain text needs subject= or user_id=)" if "subject_id" in fields else ""
            raise InvalidInput(f"turn {index} is invalid ({fields}){hint}", "invalid") from None
    if not out:
        raise InvalidInput("add() needs at least one turn", "invalid")
    return out


def _as_dict(proposal: Any) -> dict[str, Any]:
    if isinstance(proposal, BaseModel):
        return proposal.model_dump(mode="json")
    return dict(proposal)
