"""Client-chosen ids are scoped per tenant (issue 22 item 3).

A curate run id is the client's choice: another tenant holding the same id is simply a
different run (never a 500, never an existence oracle); the same tenant reusing its own id
is a 409. And a sweep of every unique index of the migrated schema: one that holds a
client-chosen id also holds ``tenant_id`` (or lives on a system table no tenant writes).
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, create_engine, text

from memwarden_shared.contract.canonical import memory_id_for
from memwarden_shared.store.rls import SYSTEM_TABLES
from tests.test_api import api_client, auth, make_keys

BOUNDED = settings(
    max_examples=15,
    database=None,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
RUN_IDS = st.from_regex(r"[A-Za-z0-9_.:-]{1,60}", fullmatch=True)


def _snapshot(client: TestClient, key: str, run_id: str) -> Any:
    return client.post(
        "/v1/curate/runs", json={"all_subjects": True, "run_id": run_id}, headers=auth(key)
    )


@given(run_id=RUN_IDS, never_used=RUN_IDS)
@BOUNDED
def test_ids__a_run_id_held_by_another_tenant_is_a_different_run_and_no_oracle(
    store: Engine, run_id: str, never_used: str
) -> None:
    run_id = f"{run_id}-{uuid.uuid4().hex[:6]}"  # examples share the store: fresh per example
    never_used = f"{never_used}-{uuid.uuid4().hex[:6]}"
    keys = make_keys(store, "t-" + uuid.uuid4().hex[:10])
    mine, theirs = keys.admin, keys.other_reviewer  # memory:admin in two tenants
    with api_client(store) as client:
        first = _snapshot(client, mine, run_id)
        assert first.status_code == 200, first.text
        squat = _snapshot(client, theirs, run_id)
        assert squat.status_code == 200, squat.text  # their own run of that id
        again = _snapshot(client, mine, run_id)
        assert (again.status_code, again.json()["code"]) == (409, "run_exists")
        # The other tenant cannot tell an id held by someone else from one never used.
        held = client.get(f"/v1/curate/runs/{run_id}x", headers=auth(theirs))
        unused = client.get(f"/v1/curate/runs/{never_used}", headers=auth(theirs))
        assert held.status_code == unused.status_code == 404
        assert held.json()["code"] == unused.json()["code"] == "unknown_run"
        # Each sees its own run under the shared id.
        for key in (mine, theirs):
            got = client.get(f"/v1/curate/runs/{run_id}", headers=auth(key))
            assert got.status_code == 200 and got.json()["run_id"] == run_id


def test_ids__the_same_run_id_raced_in_one_tenant_is_one_run_and_a_409(pg_engine: Engine) -> None:
    keys = make_keys(pg_engine, "t-" + uuid.uuid4().hex[:10])
    for _ in range(5):
        run_id = "race-" + uuid.uuid4().hex[:8]
        with api_client(pg_engine) as client:
            statuses = _race(client, keys.admin, run_id, 3)
        assert sorted(statuses) == [200, 409, 409], statuses


def _race(client: TestClient, key: str, run_id: str, n: int) -> list[int]:
    statuses: list[int] = []
    gate = threading.Barrier(n)

    def snap() -> None:
        gate.wait()
        statuses.append(_snapshot(client, key, run_id).status_code)

    threads = [threading.Thread(target=snap) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses


# Columns whose values a client chooses (ids and keys in request bodies and paths). A
# unique index holding one must hold tenant_id too, or one tenant could squat another's id.
CLIENT_CHOSEN = frozenset(
    {
        "run_id",
        "message_id",
        "proposal_id",
        "principal_id",
        "subject_id",
        "session_id",
        "idempotency_key",
        "event_key",
        "path",
    }
)


def test_ids__every_unique_index_with_a_client_chosen_id_is_per_tenant(
    pg_owner_url: str,
) -> None:
    engine = create_engine(pg_owner_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT t.relname AS tab, i.relname AS idx, "
                    "  array_agg(a.attname::text ORDER BY a.attnum) AS cols "
                    "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
                    "JOIN pg_class t ON t.oid = x.indrelid "
                    "JOIN pg_namespace n ON n.oid = t.relnamespace "
                    "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(x.indkey) "
                    "WHERE n.nspname = current_schema() AND x.indisunique "
                    "GROUP BY t.relname, i.relname"
                )
            ).all()
    finally:
        engine.dispose()
    assert len(rows) > 20  # the sweep saw the schema
    global_ids = [
        (r.tab, r.idx, r.cols)
        for r in rows
        if CLIENT_CHOSEN & set(r.cols) and "tenant_id" not in r.cols and r.tab not in SYSTEM_TABLES
    ]
    # dead_letters: (stage, event_key) where the event key starts with the tenant id, and
    # replay bookkeeping keyed by operator run ids; both written by system processes only.
    assert {(t, i) for t, i, _ in global_ids} <= set(REVIEWED_GLOBAL), global_ids


# Reviewed: unique without tenant_id, yet per tenant or never a tenant's choice.
REVIEWED_GLOBAL = {
    # memory_id is a hash of the fact key, which holds tenant_id (canonical.memory_id_for;
    # see the property test below): the same client ids in two tenants give two memory ids
    ("curate_spans", "pk_curate_spans"): "memory_id is tenant-bound",
    ("memory_evidence", "pk_memory_evidence"): "memory_id is tenant-bound",
    # written by consumers (the system login) only; outbox event keys begin with the tenant
    ("dead_letters", "uq_dead_letters_stage_event_key"): "system-written",
    # `memwarden replay` run ids are an operator's, for a system process
    ("replay_chunks", "pk_replay_chunks"): "operator run ids",
    ("replay_chunks", "uq_replay_chunks_run_id_lane_seq"): "operator run ids",
}

FACT_KEYS = st.fixed_dictionaries(
    {
        name: st.text(min_size=1, max_size=12)
        for name in ("subject_id", "scope_kind", "scope_key", "kind", "normalized_key")
    }
)


@given(
    key=FACT_KEYS,
    tenants=st.lists(st.text(min_size=1, max_size=12), min_size=2, max_size=2, unique=True),
)
@settings(max_examples=200, database=None, derandomize=True)
def test_ids__the_same_client_ids_in_two_tenants_are_two_memory_ids(
    key: dict[str, str], tenants: list[str]
) -> None:
    a, b = ({**key, "tenant_id": t, "claim_key": ""} for t in tenants)
    assert memory_id_for(a) != memory_id_for(b)


@pytest.mark.parametrize("route", ["/v1/curate/runs/{}", "/v1/curate/runs/{}/plan"])
def test_ids__an_unknown_run_is_a_404_not_a_500(store: Engine, tenant: str, route: str) -> None:
    keys = make_keys(store, tenant)
    with api_client(store) as client:
        got = client.get(route.format("nobody-" + uuid.uuid4().hex[:6]), headers=auth(keys.admin))
    assert got.status_code == 404
