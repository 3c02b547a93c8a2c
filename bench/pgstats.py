"""Rows written and transactions run, read from PostgreSQL's own counters (issue 23).

``pg_stat_user_tables`` counts every row each table inserted, updated and deleted;
``pg_stat_database`` counts transactions; ``pg_stat_statements``, when the server preloads
it, counts statements. A backend flushes its counters at most once a second and an idle one
within ten seconds, so a delta is only read after the work has settled (``settle_s``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import Engine, exc, text

FLUSH_S = 11.0  # PostgreSQL 15: an idle backend reports pending counters within 10 s


@dataclass(frozen=True)
class Counters:
    rows: dict[str, int]  # table -> rows inserted + updated + deleted
    transactions: int
    statements: int | None  # None: pg_stat_statements is not loaded on this server

    def minus(self, before: Counters) -> Counters:
        tables = set(self.rows) | set(before.rows)
        return Counters(
            rows={t: self.rows.get(t, 0) - before.rows.get(t, 0) for t in sorted(tables)},
            transactions=self.transactions - before.transactions,
            statements=None
            if self.statements is None or before.statements is None
            else self.statements - before.statements,
        )

    def per_turn(self, turns: int) -> str:
        written = {t: n for t, n in self.rows.items() if n}
        by_table = ", ".join(f"{t} {n / turns:.2f}" for t, n in written.items())
        statements = (
            "n/a (pg_stat_statements not preloaded)"
            if self.statements is None
            else f"{self.statements / turns:.1f}"
        )
        return (
            f"rows written per turn {sum(written.values()) / turns:.1f} ({by_table}); "
            f"transactions per turn {self.transactions / turns:.2f}; "
            f"statements per turn {statements}"
        )


def read(engine: Engine, settle_s: float = FLUSH_S) -> Counters:
    time.sleep(settle_s)
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables")
        ).all()
        xacts = conn.execute(
            text(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database "
                "WHERE datname = current_database()"
            )
        ).scalar_one()
        statements: int | None = None
        try:
            with conn.begin_nested():
                statements = int(
                    conn.execute(
                        text(
                            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements "
                            "WHERE dbid = (SELECT oid FROM pg_database "
                            "WHERE datname = current_database())"
                        )
                    ).scalar_one()
                )
        except exc.DBAPIError:  # the view is absent or not preloaded: say n/a
            statements = None
        conn.rollback()
    return Counters(
        rows={r[0]: int(r[1]) for r in rows}, transactions=int(xacts), statements=statements
    )
