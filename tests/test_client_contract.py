"""One contract for ``memwarden.Memory`` (SPEC §16), run against each backend:

- embedded: SQLite in a temporary directory, the pipeline in-process;
- distributed: the shared PostgreSQL test database; the client only commits state and
  outbox rows, and the test stands in for the relay and workers by draining the outbox
  in-process (the same stage tasks; tests/test_distributed.py runs them as processes);
- remote: the real FastAPI app served by uvicorn on a free port, over real HTTP.
"""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from sqlalchemy import Engine

from memwarden import Memory, NotFound, Refused, TurnInput, Unauthorized
from memwarden.api.app import create_app
from memwarden_shared.config import Settings
from memwarden_shared.state.auth import Scope, create_principal
from memwarden_shared.store.db import engine_for, migrate
from tests.conftest import REDIS_URL

PNPM = "I prefer pnpm for all my JavaScript projects."
VIM, EMACS = "I prefer vim.", "Actually, I prefer emacs."


@dataclass
class Backend:
    memory: Memory
    settle: Callable[[], None]  # what the workers would do; a no-op where the call drained
    engine: Engine  # the store behind the backend, for creating principals
    connect: Callable[[str], Memory]  # another client of the same store and tenant, by key

    def new_key(self, scopes: list[Scope]) -> str:
        with self.engine.begin() as conn:
            return create_principal(conn, "p-" + uuid.uuid4().hex[:8], self.memory.tenant, scopes)

    def add(self, *args: Any, **kwargs: Any) -> Any:
        result = self.memory.add(*args, **kwargs)
        self.settle()
        return result


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def api_server(tmp_path: Path) -> Iterator[tuple[str, str, Engine]]:
    """The API over an embedded store on a real port; yields (url, memory:admin key, store)."""
    engine = engine_for(f"sqlite:///{tmp_path / 'api' / 'memwarden.db'}")
    migrate(engine)
    tenant = "t-" + uuid.uuid4().hex[:10]
    with engine.begin() as conn:
        key = create_principal(conn, "client-test", tenant, [Scope.ADMIN])
    app = create_app(engine, settings=Settings(data_dir=tmp_path / "api", broker_url=""))
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", key, engine
    finally:
        server.should_exit = True
        thread.join(30)
        engine.dispose()


def _distributed(request: pytest.FixtureRequest) -> Backend:
    from memwarden_usecases.pipeline import drain

    pg: Engine = request.getfixturevalue("pg_engine")
    url = pg.url.render_as_string(hide_password=False)
    tenant = "t-" + uuid.uuid4().hex[:10]
    memory = Memory(database_url=url, broker_url=REDIS_URL, tenant=tenant)

    def settle() -> None:
        drain(pg)

    return Backend(
        memory,
        settle,
        pg,
        lambda key: Memory(database_url=url, broker_url=REDIS_URL, tenant=tenant, api_key=key),
    )


@pytest.fixture(
    params=[
        "embedded",
        pytest.param("distributed", marks=pytest.mark.postgres),
        "remote",
    ]
)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "embedded":
        data_dir, tenant = tmp_path / "embedded", "t-" + uuid.uuid4().hex[:10]
        backend = Backend(
            Memory(data_dir=data_dir, tenant=tenant),
            lambda: None,
            engine_for(f"sqlite:///{data_dir / 'memwarden.db'}"),
            lambda key: Memory(data_dir=data_dir, tenant=tenant, api_key=key),
        )
    elif request.param == "distributed":
        backend = _distributed(request)
    else:
        url, key, engine = request.getfixturevalue("api_server")
        backend = Backend(
            Memory(api_url=url, api_key=key),
            lambda: None,
            engine,
            lambda other: Memory(api_url=url, api_key=other),
        )
    with backend.memory:
        yield backend


def _turn(text: str, message_id: str | None = None, **fields: Any) -> TurnInput:
    return TurnInput(
        subject_id=fields.pop("subject_id", "alice"),
        text=text,
        message_id=message_id or "m-" + uuid.uuid4().hex[:8],
        created_at=fields.pop("created_at", "2026-05-01T09:00:00Z"),
        **fields,
    )


def test_client__add_returns_message_ids_and_recall_finds_the_committed_memory(
    backend: Backend,
) -> None:
    result = backend.add([_turn(PNPM, "m-pnpm"), _turn("Hello there.", "m-hello")])
    assert result.message_ids == ["m-pnpm", "m-hello"]
    assert (result.stored, result.duplicates) == (2, 0)
    if backend.memory.embedded:
        assert [(d.message_id, d.decision, d.value) for d in result.decisions or []] == [
            ("m-pnpm", "COMMIT", "pnpm")
        ]
    else:
        assert result.decisions is None  # the workers decide after the call returns
    [found] = backend.memory.recall("alice", "package manager")
    assert (found.normalized_key, found.value, found.version) == (
        "preference.package_manager",
        "pnpm",
        1,
    )
    # the API's body on every backend: the pointer back to the source, the notice
    assert (found.scope.kind, found.evidence_message_ids) == ("user", ["m-pnpm"])
    assert found.notice == "historical record, not current verification"


def test_client__plain_text_with_a_subject_is_a_turn(backend: Backend) -> None:
    result = backend.add(PNPM, subject="bob")
    assert len(result.message_ids) == 1
    assert [m.value for m in backend.memory.recall("bob")] == ["pnpm"]
    assert backend.memory.recall("alice") == []


def test_client__the_same_turn_twice_is_a_duplicate_and_other_content_is_refused(
    backend: Backend,
) -> None:
    backend.add(_turn(PNPM, "m1"))
    assert backend.add(_turn(PNPM, "m1")).duplicates == 1
    with pytest.raises(Refused) as refused:
        backend.add(_turn("I prefer yarn.", "m1"))
    assert refused.value.code == "message_conflict"


def test_client__memories_lists_versions_with_their_evidence(backend: Backend) -> None:
    backend.add(_turn(PNPM, "m-pnpm"))
    [version] = backend.memory.memories("alice")
    assert (version.status, version.current, version.value) == ("committed", True, "pnpm")
    assert version.evidence_message_ids == ["m-pnpm"]
    assert backend.memory.memories("nobody") == []


def test_client__revoke_empties_recall_before_any_worker_runs(backend: Backend) -> None:
    backend.add(_turn(PNPM, "m-pnpm"))
    assert backend.memory.revoke("m-pnpm").revoked is True
    assert backend.memory.recall("alice") == []  # protected empty: the read path checks
    backend.settle()
    assert backend.memory.revoke("m-pnpm").revoked is False
    [version] = backend.memory.memories("alice")
    assert version.status == "revoked"
    with pytest.raises(NotFound):
        backend.memory.revoke("no-such-message")


def test_client__forget_erases_the_value_and_suppresses_relearning(backend: Backend) -> None:
    backend.add(_turn(PNPM, "m-pnpm"))
    assert backend.memory.forget("m-pnpm").memory_versions_forgotten == 1
    backend.settle()
    [version] = backend.memory.memories("alice")
    assert (version.status, version.value) == ("forgotten", None)
    backend.add(_turn(PNPM, "m-again"))
    assert backend.memory.recall("alice") == []
    with pytest.raises(NotFound):
        backend.memory.forget("no-such-message")


def test_client__a_replacement_waits_for_approval_bound_to_its_payload_hash(
    backend: Backend,
) -> None:
    backend.add(_turn(VIM, "m-vim"))
    backend.add(_turn(EMACS, "m-emacs", created_at="2026-05-02T09:00:00Z"))
    [item] = backend.memory.pending()
    assert (item.value, item.decision, item.message_id) == ("emacs", "CONFIRM_REPLACE", "m-emacs")
    # the evidence a reviewer reads, on every backend: the sentence within its stored text
    evidence = item.evidence
    assert evidence.message_text is not None
    assert evidence.message_text[evidence.start : evidence.end] == EMACS
    with pytest.raises(Refused) as refused:
        backend.memory.approve(item.proposal_id, "0" * 64)
    assert refused.value.code == "payload_hash_mismatch"
    outcome = backend.memory.approve(item.proposal_id, item.payload_hash)
    assert (outcome.state, outcome.memory_version) == ("committed", 2)
    backend.settle()
    assert [m.value for m in backend.memory.recall("alice")] == ["emacs"]
    assert backend.memory.pending() == []
    with pytest.raises(NotFound):
        backend.memory.approve("f" * 64, item.payload_hash)


def test_client__reject_withdraws_a_pending_candidate(backend: Backend) -> None:
    backend.add(_turn(VIM, "m-vim"))
    backend.add(_turn(EMACS, "m-emacs", created_at="2026-05-02T09:00:00Z"))
    [item] = backend.memory.pending()
    assert backend.memory.reject(item.proposal_id).state == "rejected"
    assert backend.memory.pending() == []
    assert [m.value for m in backend.memory.recall("alice")] == ["vim"]
    with pytest.raises(Refused) as refused:
        backend.memory.reject(item.proposal_id)
    assert refused.value.code == "not_pending"


def test_client__propose_returns_a_receipt_per_proposal_and_refuses_forgeries(
    backend: Backend, make_proposal: Callable[..., dict[str, Any]]
) -> None:
    backend.add(_turn(PNPM, "m-ext", subject_id="u1"), extract=False)
    tenant = backend.memory.tenant
    good = make_proposal(tenant, "m-ext", PNPM)
    forged = make_proposal(
        tenant,
        "m-ext",
        PNPM,
        stable_candidate_ordinal=1,  # another candidate of the same sentence, a forged hash
        evidence={"message_id": "m-ext", "start": 0, "end": len(PNPM), "sha256": "0" * 64},
    )
    receipts = backend.memory.propose([good, forged])
    backend.settle()
    assert [r.decision for r in receipts] == ["COMMIT", "REJECT"]
    assert "evidence_mismatch" in receipts[1].reasons
    assert [m.value for m in backend.memory.recall("u1")] == ["pnpm"]
    assert backend.memory.propose(good)[0] == receipts[0]  # an exact replay: the same receipt
    with pytest.raises(Unauthorized) as refused:
        backend.memory.propose(make_proposal("another-tenant", "m-ext", PNPM))
    assert refused.value.code == "cross_tenant"


def test_client__bad_arguments_fail_before_any_call(backend: Backend) -> None:
    with pytest.raises(ValueError):
        backend.memory.recall("alice", k=0)
    with pytest.raises(ValueError):
        backend.memory.add("no subject given")
    with pytest.raises(ValueError):
        backend.memory.add([])


def test_client__with_an_api_key_the_client_acts_within_that_principals_scopes(
    backend: Backend,
) -> None:
    backend.add(_turn(PNPM, "m-pnpm"))
    with backend.connect(backend.new_key([Scope.READ])) as reader:
        assert [m.value for m in reader.recall("alice")] == ["pnpm"]
        for refused_call in (
            lambda: reader.add(_turn("I prefer yarn.", "m-yarn")),
            lambda: reader.revoke("m-pnpm"),
            lambda: reader.pending(),
        ):
            with pytest.raises(Unauthorized) as refused:
                refused_call()
            assert refused.value.code == "missing_scope"
    assert [m.value for m in backend.memory.recall("alice")] == ["pnpm"]  # nothing changed
    for bad in ("mwk_" + "x" * 43, "not-a-key"):
        with pytest.raises(Unauthorized):
            backend.connect(bad)


def test_client__act_asks_the_action_gate_with_the_memories_it_relies_on(
    backend: Backend,
) -> None:
    backend.add(_turn(PNPM, "m-pnpm"))
    backend.settle()
    [version] = backend.memory.memories("alice")
    uses = [version.memory_id]
    first = backend.memory.act(
        "alice", "package.install", {"package": "react"}, uses=uses, idempotency_key="k1"
    )
    assert (first.decision, first.reasons) == ("ALLOW", [])
    assert first.memory_versions == [f"{version.memory_id}:1"]
    again = backend.memory.act(
        "alice", "package.install", {"package": "react"}, uses=uses, idempotency_key="k1"
    )
    assert (again.decision, again.action_id) == ("DUPLICATE", first.action_id)
    with pytest.raises(Refused) as conflict:
        backend.memory.act(
            "alice", "package.install", {"package": "vue"}, uses=uses, idempotency_key="k1"
        )
    assert conflict.value.code == "key_conflict"
    unknown = backend.memory.act("alice", "no.such_intent", idempotency_key="k2")
    assert (unknown.decision, unknown.reasons) == ("DENY", ["unknown_intent"])
    backend.memory.revoke("m-pnpm")
    backend.settle()
    denied = backend.memory.act(
        "alice", "package.install", {"package": "react"}, uses=uses, idempotency_key="k3"
    )
    assert denied.decision == "DENY" and "memory_revoked" in denied.reasons
