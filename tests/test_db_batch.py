"""shared/db.Batch: queued statements run in order in the caller's transaction, on both
backends, with rows, rowcounts and SQLAlchemy's own error classes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Engine, bindparam, select, update
from sqlalchemy.exc import IntegrityError

from memwarden_shared.store.db import Batch, unit_of_work
from memwarden_shared.store.dialect import in_param, insert_ignore_stmt
from memwarden_shared.store.schema import receipts


def _rows(tenant: str, n: int) -> list[dict[str, Any]]:
    stamp = datetime(2026, 5, 1, 9, 0, tzinfo=timezone(timedelta(hours=8)))
    return [
        {"tenant_id": tenant, "proposal_id": f"p{i}", "body": f"b{i}", "created_at": stamp}
        for i in range(n)
    ]


def test_batch__statements_run_in_order_and_report_rows_and_counts(
    store: Engine, tenant: str
) -> None:
    with unit_of_work(store) as uow:
        batch = Batch(uow.conn)
        batch.add(
            "test.insert",
            lambda conn: insert_ignore_stmt(conn, receipts, ["tenant_id", "proposal_id"]),
            _rows(tenant, 3) + _rows(tenant, 1),  # the repeat is ignored
        )
        moved = batch.add(
            "test.update",
            lambda _conn: (
                update(receipts)
                .where(
                    receipts.c.tenant_id == bindparam("t"), receipts.c.proposal_id == bindparam("p")
                )
                .values(body=bindparam("b"))
            ),
            [{"t": tenant, "p": "p0", "b": "x"}, {"t": tenant, "p": "p1", "b": "y"}],
        )
        nothing = batch.add("test.empty", lambda _conn: receipts.insert(), [])
        read = batch.add(
            "test.read",
            lambda conn: (
                select(receipts)
                .where(
                    in_param(conn, receipts.c.proposal_id, "ids"),
                    receipts.c.tenant_id == bindparam("t"),
                )
                .order_by(receipts.c.proposal_id)
            ),
            {"ids": ["p0", "p2", "absent"], "t": tenant},
        )
        batch.send()
        uow.commit()
    assert moved.rowcount == 2
    assert nothing.rows == [] and nothing.rowcount == 0
    assert [(r["proposal_id"], r["body"]) for r in read.rows] == [("p0", "x"), ("p2", "b2")]
    # timestamps come back in UTC on both backends, as through SQLAlchemy's UtcDateTime
    assert read.rows[0]["created_at"] == datetime(2026, 5, 1, 1, 0, tzinfo=UTC)
    assert read.rows[0]["created_at"].utcoffset() == timedelta(0)


def test_batch__a_failed_statement_raises_sqlalchemys_error_and_nothing_is_kept(
    store: Engine, tenant: str
) -> None:
    with pytest.raises(IntegrityError), unit_of_work(store) as uow:
        batch = Batch(uow.conn)
        batch.add("test.plain_insert", lambda _conn: receipts.insert(), _rows(tenant, 2))
        batch.add("test.plain_insert", lambda _conn: receipts.insert(), _rows(tenant, 1))
        batch.send()
        uow.commit()
    with store.connect() as conn:
        assert conn.execute(select(receipts).where(receipts.c.tenant_id == tenant)).all() == []
