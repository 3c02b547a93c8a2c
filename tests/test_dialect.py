"""store/dialect: the one place PostgreSQL and SQLite differ. No other module compares
dialect names, and each helper means the same on both stores."""

from __future__ import annotations

import ast
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, Engine, func, select

from memwarden_shared.contract.canonical import memory_id_for
from memwarden_shared.state import memory_state
from memwarden_shared.store.db import unit_of_work, utcnow
from memwarden_shared.store.dialect import (
    in_list,
    insert_ignore,
    insert_ignore_stmt,
    lock_rows,
    pairs_in,
    upsert,
)
from memwarden_shared.store.schema import fact_keys, review_holds

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = [ROOT / "shared", ROOT / "services", ROOT / "memwarden"]
DIALECT_MODULE = ROOT / "shared" / "memwarden_shared" / "store" / "dialect.py"
NAMES = {"postgresql", "sqlite"}


def _names_a_dialect(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Attribute):
        # conn.dialect / conn.dialect.name / uow.dialect
        return node.attr == "dialect" or (
            node.attr == "name"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "dialect"
        )
    return False


def dialect_branches(source: str) -> list[int]:
    """Line numbers where ``source`` decides by dialect name: a comparison with a dialect
    (or its name, or the literal "postgresql"/"sqlite"), ``url.startswith("sqlite")``, or
    an import of SQLAlchemy's per-dialect constructs."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(_names_a_dialect(x) for x in [node.left, *node.comparators]):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            first = node.args[0] if node.args else None
            if node.func.attr == "startswith" and first is not None and _names_a_dialect(first):
                found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "sqlalchemy.dialects"
        ):
            found.append(node.lineno)
    return found


def test_dialect__the_check_sees_each_shape_of_a_dialect_branch() -> None:
    shapes = [
        'if conn.dialect.name == "postgresql":\n    pass',
        'x = a if engine.dialect.name != "sqlite" else b',
        'if uow.dialect == "postgresql":\n    pass',
        'ok = url.startswith("sqlite")',
        "from sqlalchemy.dialects import postgresql",
    ]
    assert [len(dialect_branches(s)) for s in shapes] == [1] * len(shapes)
    assert dialect_branches('t = BigInteger().with_variant(Integer(), "sqlite")') == []


def test_dialect__no_module_outside_the_dialect_module_branches_on_the_dialect() -> None:
    # No exceptions: migrations/env.py, the RLS migration and store/rls.py ask
    # ``alters_in_batches`` / ``has_row_security`` like everyone else.
    offenders = {
        str(path.relative_to(ROOT)): lines
        for folder in PACKAGE_DIRS
        for path in sorted(folder.rglob("*.py"))
        if path != DIALECT_MODULE and ".venv" not in path.parts
        for lines in [dialect_branches(path.read_text(encoding="utf-8"))]
        if lines
    }
    assert offenders == {}


def test_dialect__row_locks_are_requested_on_postgresql_only(store: Engine) -> None:
    sql = str(lock_rows(store, select(fact_keys)).compile(dialect=store.dialect))
    shared = str(lock_rows(store, select(fact_keys), read=True).compile(dialect=store.dialect))
    if store.dialect.name == "postgresql":
        assert sql.endswith("FOR UPDATE")
        assert shared.endswith("FOR SHARE")
    else:  # the transaction holds SQLite's database write lock from BEGIN IMMEDIATE
        assert "FOR " not in sql + shared


def _key(tenant: str, subject: str, normalized_key: str) -> dict[str, str]:
    return {
        "tenant_id": tenant,
        "subject_id": subject,
        "scope_kind": "user",
        "scope_key": subject,
        "kind": "preference",
        "normalized_key": normalized_key,
        "claim_key": "",
    }


def test_dialect__insert_ignore_skips_a_row_that_exists_on_either_store(
    store: Engine, tenant: str
) -> None:
    key = _key(tenant, "u1", "preference.editor")
    row = {**key, "memory_id": memory_id_for(key), "current_version": 0, "updated_at": utcnow()}
    with unit_of_work(store) as uow:
        insert_ignore(uow.conn, fact_keys, row, ["memory_id"])
        insert_ignore(uow.conn, fact_keys, [row, row], ["memory_id"])
        # no conflict target: a conflict on any unique index skips the row (here the fact
        # key's columns stay free, the memory_id is taken)
        other = {**row, "subject_id": "u2"}
        uow.conn.execute(insert_ignore_stmt(uow.conn, fact_keys).values(other))
        count = uow.conn.execute(
            select(func.count()).where(in_list(uow.conn, fact_keys.c.tenant_id, [tenant]))
        ).scalar_one()
    assert count == 1


def _arm(conn: Connection, tenant: str, reason: str) -> bool:
    """holds.arm's statement: insert, or re-arm a cleared hold; True when a row came back."""
    stmt = upsert(
        conn,
        review_holds,
        ["tenant_id", "scope"],
        lambda new: {"reason": new["reason"], "cleared_at": None},
        where=review_holds.c.cleared_at.is_not(None),
    ).values(tenant_id=tenant, scope="s", reason=reason, detail="{}", created_at=utcnow())
    return conn.execute(stmt.returning(review_holds.c.scope)).first() is not None


def test_dialect__upsert_updates_only_where_its_condition_holds(store: Engine, tenant: str) -> None:
    with unit_of_work(store) as uow:
        assert _arm(uow.conn, tenant, "first")
        assert not _arm(uow.conn, tenant, "second")  # active: the condition keeps it
        uow.conn.execute(
            review_holds.update()
            .where(review_holds.c.tenant_id == tenant)
            .values(cleared_at=utcnow())
        )
        assert _arm(uow.conn, tenant, "third")  # cleared: re-armed
        reason = uow.conn.execute(
            select(review_holds.c.reason).where(
                pairs_in(uow.conn, review_holds.c.tenant_id, review_holds.c.scope, [(tenant, "s")])
            )
        ).scalar_one()
    assert reason == "third"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    picks=st.lists(
        st.tuples(st.sampled_from(["u1", "u2"]), st.sampled_from(["a.b", "a.c", "d.e"])),
        min_size=1,
        max_size=8,
    ),
    split=st.integers(min_value=0, max_value=8),
)
def test_memory_state__the_fact_key_lock_creates_each_new_key_once_whatever_repeats(
    store: Engine, picks: list[tuple[str, str]], split: int
) -> None:
    # Two lock calls over overlapping key sets (the second repeats keys the first locked),
    # in one transaction: every key is returned locked, version 0, and nothing is written
    # for a lock. Committing the first versions then writes exactly one row per key, with
    # version 1 (one insert, no placeholder row updated: issue 23).
    tenant = "t-" + uuid.uuid4().hex[:10]
    keys = {memory_id_for(k): k for k in (_key(tenant, s, n) for s, n in picks)}
    first = dict(list(keys.items())[:split])

    def stored(conn: Connection) -> list[tuple[str, int]]:
        return sorted(
            (r.memory_id, r.current_version)
            for r in conn.execute(
                select(fact_keys.c.memory_id, fact_keys.c.current_version).where(
                    fact_keys.c.tenant_id == tenant
                )
            )
        )

    with unit_of_work(store) as uow:
        now = utcnow()
        locked_first = memory_state.lock_fact_keys(uow.conn, first, now)
        locked = memory_state.lock_fact_keys(uow.conn, keys, now)
        before = stored(uow.conn)
        memory_state.commit_versions(
            uow.conn,
            [
                memory_state.NewVersion(
                    fact_row=row,
                    value="v",
                    proposal_id=f"p-{mid}",
                    message_id="m1",
                    message_revision=1,
                    auto=True,
                    valid_from=now,
                    expires_at=None,
                )
                for mid, row in sorted(locked.items())
            ],
            now,
        )
        after = stored(uow.conn)
    assert set(locked_first) == set(first)
    assert set(locked) == set(keys)
    assert {r["current_version"] for r in locked.values()} == {0}
    assert before == []
    assert after == [(mid, 1) for mid in sorted(keys)]


def _first_version(row: dict[str, Any], now: datetime) -> memory_state.NewVersion:
    return memory_state.NewVersion(
        fact_row=row,
        value="v",
        proposal_id="p-1",
        message_id="m1",
        message_revision=1,
        auto=True,
        valid_from=now,
        expires_at=None,
    )


def test_memory_state__a_commit_on_a_key_that_moved_raises_and_overwrites_nothing(
    store: Engine, tenant: str
) -> None:
    # The compare-and-set guard, for a stored key (its version moved) and for a new one (a
    # row appeared that the lock did not see): both raise; the caller rolls back.
    key = _key(tenant, "u1", "a.b")
    mid = memory_id_for(key)
    with unit_of_work(store) as uow:
        now = utcnow()
        new = memory_state.lock_fact_keys(uow.conn, {mid: key}, now)[mid]
        uow.conn.execute(
            fact_keys.insert().values(**key, memory_id=mid, current_version=3, updated_at=now)
        )
        with pytest.raises(memory_state.CompareAndSetFailed):
            memory_state.commit_versions(uow.conn, [_first_version(new, now)], now)
    with unit_of_work(store) as uow:
        now = utcnow()
        row = memory_state.lock_fact_keys(uow.conn, {mid: key}, now)[mid]
        memory_state.commit_versions(uow.conn, [_first_version(row, now)], now)
        uow.conn.execute(
            fact_keys.update().where(fact_keys.c.memory_id == mid).values(current_version=7)
        )
        stale = {
            **row,
            "current_version": 1,
            "id": uow.conn.execute(
                select(fact_keys.c.id).where(fact_keys.c.memory_id == mid)
            ).scalar_one(),
        }
        with pytest.raises(memory_state.CompareAndSetFailed):
            memory_state.commit_versions(uow.conn, [_first_version(stale, now)], now)
        version = uow.conn.execute(
            select(fact_keys.c.current_version).where(fact_keys.c.memory_id == mid)
        ).scalar_one()
    assert version == 7
