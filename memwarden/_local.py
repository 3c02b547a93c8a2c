"""The in-process backends: embedded (SQLite, the pipeline runs before a call returns) and
distributed (a shared database whose outbox the relay and the stage workers serve).

Both call the same use cases (``memwarden_usecases``) as the CLI and the HTTP API do, and
return the API's own response types (``memwarden.types``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, OperationalError

from memwarden.errors import NotFound, Refused, Unauthorized, Unavailable
from memwarden.types import (
    ActionReceipt,
    AddResult,
    Decided,
    Forgotten,
    MemoryVersion,
    Pending,
    Provenance,
    Recalled,
    Receipt,
    Reviewed,
    Revoked,
    TurnInput,
)
from memwarden_shared.contract.models import Turn
from memwarden_shared.state.auth import (
    Forbidden,
    Principal,
    Scope,
    Unauthenticated,
    authenticate_with,
    authorize,
)
from memwarden_shared.store.db import engine_for, migrate
from memwarden_shared.store.dialect import UnsupportedStore, is_embedded_store
from memwarden_shared.store.tenant_scope import tenant_scope

# With no API key, whoever holds the database URL (or the data directory) already holds
# every power over it; the client then acts as this principal, with memory:admin.
LOCAL_PRINCIPAL = "memwarden.local"


@contextmanager
def _store_errors() -> Iterator[None]:
    """The store's own exceptions become the client's: a URL that names no usable store or
    a database that cannot be reached is :class:`Unavailable`. The message is ours: the
    driver's would name host, user or a row's values."""
    try:
        yield
    except (ArgumentError, NoSuchModuleError, UnsupportedStore):
        raise Unavailable(
            "the database URL is not usable (a postgresql:// or sqlite:/// URL)", "bad_url"
        ) from None
    except OperationalError:
        raise Unavailable(
            "the database is unavailable (unreachable, or the URL or credentials are wrong)",
            "unavailable",
        ) from None
    except DBAPIError as exc:
        raise Unavailable(
            f"the database failed the request ({type(exc.orig).__name__})", "database_error"
        ) from None


def _in_tenant(method: Callable[..., Any]) -> Callable[..., Any]:
    """Run a client call in its tenant's row-level security scope (shared.tenant_scope),
    with the store's errors translated (:func:`_store_errors`)."""

    @functools.wraps(method)
    def scoped(self: LocalBackend, *args: Any, **kwargs: Any) -> Any:
        with _store_errors(), tenant_scope(self.tenant):
            return method(self, *args, **kwargs)

    return scoped


class LocalBackend:
    """``embedded=True``: every write drains the outbox in-process before returning, so
    ``add`` reports the gate's decisions. ``embedded=False``: writes commit state and
    outbox rows only; the relay and the stage workers do the rest."""

    def __init__(
        self, url: str, *, tenant: str, embedded: bool, api_key: str | None = None
    ) -> None:
        self.embedded = embedded
        self.tenant = tenant
        with _store_errors():
            self.engine: Engine = engine_for(url)
            self._open(api_key)

    def _open(self, api_key: str | None) -> None:
        embedded = self.embedded
        try:
            if embedded and is_embedded_store(self.engine):
                # The embedded store is the client's own file: it migrates it itself.
                migrate(self.engine)
            else:
                self._check_schema()
            self.principal = self._principal(api_key)
        except BaseException:
            self.close()  # no pooled connection outlives a refused client
            raise

    def _check_schema(self) -> None:
        from memwarden_shared.store.schema_version import SchemaBehind, require_current_schema

        try:
            require_current_schema(self.engine)
        except SchemaBehind as exc:
            raise Unavailable(str(exc), "schema_behind") from None

    def _principal(self, api_key: str | None) -> Principal:
        if not api_key:
            return Principal(LOCAL_PRINCIPAL, self.tenant, frozenset({Scope.ADMIN}))
        try:
            principal = authenticate_with(self.engine, api_key)
        except Unauthenticated as exc:
            raise Unauthorized(str(exc), "unauthenticated") from None
        if principal.tenant_id != self.tenant:
            raise Unauthorized("the API key belongs to another tenant", "cross_tenant")
        return principal

    @contextmanager
    def _allowed(self, scope: Scope) -> Iterator[None]:
        try:
            authorize(self.principal, scope, self.tenant)
            yield
        except Forbidden as exc:
            raise Unauthorized(str(exc), "missing_scope") from None

    def _settle(self) -> None:
        if self.embedded:
            from memwarden_usecases.drain import drain

            drain(self.engine)

    # -- writes -------------------------------------------------------------------------

    @_in_tenant
    def add(self, turns: Sequence[TurnInput], *, extract: bool) -> AddResult:
        from memwarden_usecases.ingest import IngestRefused, ingest

        stored = [Turn.model_validate({**t.model_dump(), "tenant_id": self.tenant}) for t in turns]
        with self._allowed(Scope.PROPOSE):
            try:
                result = ingest(self.engine, stored, extract=extract)
            except IngestRefused as exc:
                raise Refused(str(exc), "message_conflict") from None
        self._settle()
        ids = [t.message_id for t in turns]
        return AddResult(
            message_ids=ids,
            stored=result.stored,
            duplicates=result.duplicates,
            decisions=self._decisions(turns) if self.embedded else None,
        )

    def _decisions(self, turns: Sequence[TurnInput]) -> list[Decided]:
        from memwarden_usecases.inspect import list_proposals

        wanted = {t.message_id for t in turns}
        out: list[Decided] = []
        for subject in dict.fromkeys(t.subject_id for t in turns):
            out += [
                Decided.model_validate(p)
                for p in list_proposals(self.engine, self.tenant, subject)
                if p["message_id"] in wanted
            ]
        return out

    @_in_tenant
    def propose(self, proposals: list[dict[str, Any]]) -> list[Receipt]:
        from memwarden_usecases.propose import propose

        for index, p in enumerate(proposals):
            if p.get("tenant_id") not in (None, self.tenant):
                raise Unauthorized(f"proposal {index} names another tenant", "cross_tenant")
        with self._allowed(Scope.PROPOSE):
            receipts = propose(self.engine, proposals, proposed_by=self.principal.principal_id)
        self._settle()
        return receipts

    @_in_tenant
    def revoke(self, message_id: str) -> Revoked:
        from memwarden_usecases import retract

        with self._allowed(Scope.REVIEW):
            try:
                changed = retract.revoke(self.engine, self.tenant, message_id)
            except retract.UnknownMessage:
                raise NotFound("no such message", "unknown_message") from None
        self._settle()
        return Revoked(message_id=message_id, revoked=changed)

    @_in_tenant
    def forget(self, message_id: str) -> Forgotten:
        from memwarden_usecases import retract

        with self._allowed(Scope.REVIEW):
            try:
                count = retract.forget(self.engine, self.tenant, message_id)
            except retract.UnknownMessage:
                raise NotFound("no such message", "unknown_message") from None
        self._settle()
        return Forgotten(message_id=message_id, memory_versions_forgotten=count)

    @_in_tenant
    def approve(self, proposal_id: str, payload_hash: str) -> Reviewed:
        from memwarden_usecases import review

        return self._review(
            lambda: review.approve(
                self.engine, self.principal, self.tenant, proposal_id, payload_hash
            )
        )

    @_in_tenant
    def reject(self, proposal_id: str) -> Reviewed:
        from memwarden_usecases import review

        return self._review(
            lambda: review.reject(self.engine, self.principal, self.tenant, proposal_id)
        )

    def _review(self, action: Any) -> Reviewed:
        from memwarden_usecases.review import ReviewRefused

        with self._allowed(Scope.REVIEW):
            try:
                outcome = action()
            except ReviewRefused as exc:
                if exc.code == "unknown_proposal":
                    raise NotFound("no such proposal", exc.code) from None
                raise Refused(f"refused: {exc.code}", exc.code) from None
        self._settle()
        return Reviewed.model_validate(outcome.__dict__)

    @_in_tenant
    def reject_memory(self, memory_id: str) -> int:
        from memwarden_usecases import retract

        with self._allowed(Scope.REVIEW):
            try:
                version = retract.reject(self.engine, self.tenant, memory_id)
            except retract.UnknownMemory:
                raise NotFound("no recallable memory with this id", "unknown_memory") from None
        self._settle()
        return version

    # -- reads --------------------------------------------------------------------------

    @_in_tenant
    def versions(self, memory_id: str) -> list[dict[str, Any]]:
        from memwarden_usecases.inspect import memory_history

        with self._allowed(Scope.READ):
            rows = memory_history(self.engine, self.tenant, memory_id)
        if not rows:
            raise NotFound("no such memory", "unknown_memory")
        return rows

    @_in_tenant
    def receipt(self, proposal_id: str) -> Receipt | None:
        from memwarden_usecases.inspect import receipt_body

        with self._allowed(Scope.READ):
            body = receipt_body(self.engine, self.tenant, proposal_id)
        return None if body is None else Receipt.model_validate_json(body)

    @_in_tenant
    def recall(self, subject: str, query: str | None, k: int) -> list[Recalled]:
        from memwarden_usecases.recall import recall

        with self._allowed(Scope.READ):
            found = recall(
                self.engine, self.tenant, subject, query, k=k, reader=self.principal.principal_id
            )
        return [Recalled.model_validate(r.as_json()) for r in found]

    @_in_tenant
    def memories(self, subject: str) -> list[MemoryVersion]:
        from memwarden_usecases.inspect import list_memories

        with self._allowed(Scope.READ):
            rows = list_memories(self.engine, self.tenant, subject)
        return [MemoryVersion.model_validate(r) for r in rows]

    @_in_tenant
    def why(self, memory_id: str) -> Provenance:
        from memwarden_usecases.provenance import why

        with self._allowed(Scope.READ):
            found = why(self.engine, self.tenant, memory_id)
        if found is None:
            raise NotFound(f"no memory {memory_id} in this tenant", "unknown_memory")
        return Provenance.model_validate(found)

    @_in_tenant
    def pending(self, limit: int) -> list[Pending]:
        from memwarden_usecases.review import pending_with_evidence

        with self._allowed(Scope.REVIEW):
            rows = pending_with_evidence(self.engine, self.principal, self.tenant, limit=limit)
        return [Pending.model_validate(r) for r in rows]

    @_in_tenant
    def act(self, request: dict[str, Any]) -> ActionReceipt:
        from pydantic import ValidationError

        from memwarden_shared.contract.models import safe_error_fields
        from memwarden_usecases import act

        try:
            req = act.ActionRequest(tenant_id=self.tenant, **request)
        except ValidationError as exc:
            fields = "; ".join(safe_error_fields(exc))
            raise Refused(f"invalid action request ({fields})", "invalid") from None
        try:
            # a principal without action:request gets a recorded DENY not_authorised, as
            # over the API: the gate decides, the client does not pre-empt it
            got = act.request(self.engine, self.principal, req)
        except act.ActionKeyConflict as exc:
            raise Refused(str(exc), "key_conflict") from None
        except act.UnknownIntent as exc:
            raise Refused(str(exc), "unknown_intent") from None
        return ActionReceipt.model_validate(got)

    def close(self) -> None:
        """Close the pooled connections. The engine is shared per URL in this process
        (``engine_for``); anyone else using it simply opens new connections."""
        self.engine.dispose()


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{Path(data_dir).expanduser() / 'memwarden.db'}"
