"""``Memory``: memwarden from Python, on whichever backend the constructor names (SPEC §16)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from memwarden.types import (
    ActionReceipt,
    AddResult,
    Forgotten,
    MemoryProposal,
    MemoryVersion,
    Pending,
    Recalled,
    Receipt,
    Reviewed,
    Revoked,
    TurnInput,
)

TurnLike = TurnInput | Mapping[str, Any] | str


class _Backend(Protocol):
    embedded: bool
    tenant: str

    def add(self, turns: list[TurnInput], *, extract: bool) -> AddResult: ...
    def propose(self, proposals: list[dict[str, Any]]) -> list[Receipt]: ...
    def recall(self, subject: str, query: str | None, k: int) -> list[Recalled]: ...
    def memories(self, subject: str) -> list[MemoryVersion]: ...
    def revoke(self, message_id: str) -> Revoked: ...
    def forget(self, message_id: str) -> Forgotten: ...
    def pending(self, limit: int) -> list[Pending]: ...
    def approve(self, proposal_id: str, payload_hash: str) -> Reviewed: ...
    def reject(self, proposal_id: str) -> Reviewed: ...
    def act(self, request: dict[str, Any]) -> ActionReceipt: ...
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

    Errors: :class:`memwarden.NotFound`, :class:`memwarden.Refused`,
    :class:`memwarden.Unauthorized`, :class:`memwarden.Unavailable` (all
    :class:`memwarden.MemwardenError`, with a ``code``).
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
                raise ValueError("api_url cannot be combined with database_url or data_dir")
            from memwarden._remote import RemoteBackend

            self._backend = RemoteBackend(api_url, api_key or "", timeout=timeout)
            return
        from memwarden._local import LocalBackend, sqlite_url
        from memwarden_shared.config import get_settings

        if database_url and data_dir:
            raise ValueError("database_url and data_dir name two different stores")
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
    ) -> AddResult:
        """Store one turn or many (a :class:`TurnInput`, a dict with its fields, or plain text
        with ``subject=``). Idempotent by message id; the same id with other content refuses
        the whole batch (:class:`memwarden.Refused`). ``extract=False`` stores evidence only,
        for an external extractor that will :meth:`propose`."""
        return self._backend.add(_turns(turns, subject), extract=extract)

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
            raise ValueError("k must be between 1 and 100")
        return self._backend.recall(subject, query, k)

    def memories(self, subject: str) -> list[MemoryVersion]:
        """Every version of the subject's memories, history included, oldest first."""
        return self._backend.memories(subject)

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


def _turns(turns: TurnLike | Iterable[TurnLike], subject: str | None) -> list[TurnInput]:
    if isinstance(turns, (str, TurnInput, Mapping)):
        turns = [turns]
    out = []
    for turn in turns:
        if isinstance(turn, str):
            if subject is None:
                raise ValueError("plain-text turns need subject=")
            out.append(TurnInput(subject_id=subject, text=turn))
        elif isinstance(turn, TurnInput):
            out.append(turn)
        else:
            data = dict(turn)
            if subject is not None:
                data.setdefault("subject_id", subject)
            out.append(TurnInput.model_validate(data))
    if not out:
        raise ValueError("add() needs at least one turn")
    return out


def _as_dict(proposal: Any) -> dict[str, Any]:
    if isinstance(proposal, BaseModel):
        return proposal.model_dump(mode="json")
    return dict(proposal)
