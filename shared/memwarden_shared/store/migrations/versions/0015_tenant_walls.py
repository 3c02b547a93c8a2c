"""tenant walls with no gaps: every table guarded, the system scope a role, run ids per tenant

Revision ID: 0015
Revises: 0014_seeds
Create Date: 2026-12-02

Issue 22 items 1-3.

- The tenant policies no longer honour a ``'*'`` setting: the system scope is the role
  ``memwarden_system`` (shared.rls), named by a ``system_scope`` policy on every table.
- ``curate_ledger``, ``curate_signoffs``, ``curate_writes`` and ``curate_spans`` get a
  ``tenant_id`` (copied from their run, or from the memory's fact key) and the tenant policy.
  A row whose parent is gone gets ``''``: no tenant scope matches it, the system role does.
- ``processed_events`` and the replay bookkeeping tables are system tables: the system policy
  only, so the application role sees none of their rows.
- Curate run ids are the client's choice, so they are unique per tenant: ``(tenant_id,
  run_id)`` keys the run and its ledger. Two tenants may use the same run id.
"""

from alembic import op
import sqlalchemy as sa

from memwarden_shared.store.dialect import has_row_security
from memwarden_shared.store.rls import (
    SYSTEM_TABLES,
    disable_tenant_rls,
    enable_system_rls,
    enable_tenant_rls,
    ensure_system_role,
    tenant_tables,
)

revision = "0015"
down_revision = "0014_seeds"
branch_labels = None
depends_on = None

_FROM_RUN = ("curate_ledger", "curate_signoffs", "curate_writes")


def upgrade() -> None:
    conn = op.get_bind()
    if has_row_security(conn):
        # First the role and the policies naming it: a migrating owner that is not a
        # superuser then sees every run while copying tenant ids below.
        ensure_system_role(conn)
        for table in tenant_tables(conn):
            enable_tenant_rls(conn, table)
    for table in (*_FROM_RUN, "curate_spans"):
        op.add_column(table, sa.Column("tenant_id", sa.String(200), nullable=True))
    for table in _FROM_RUN:
        op.execute(
            f"UPDATE {table} SET tenant_id = COALESCE((SELECT r.tenant_id FROM curate_runs r "
            f"WHERE r.run_id = {table}.run_id), '')"
        )
    op.execute(
        "UPDATE curate_spans SET tenant_id = COALESCE((SELECT k.tenant_id FROM fact_keys k "
        "WHERE k.memory_id = curate_spans.memory_id), '')"
    )
    with op.batch_alter_table("curate_runs") as batch:
        batch.drop_constraint("pk_curate_runs", type_="primary")
        batch.create_primary_key("pk_curate_runs", ["tenant_id", "run_id"])
    with op.batch_alter_table("curate_ledger") as batch:
        batch.alter_column("tenant_id", existing_type=sa.String(200), nullable=False)
        batch.drop_constraint("uq_curate_ledger_batch", type_="unique")
        batch.drop_constraint("pk_curate_ledger", type_="primary")
        batch.create_primary_key("pk_curate_ledger", ["tenant_id", "run_id", "seq"])
        batch.create_unique_constraint(
            "uq_curate_ledger_batch", ["tenant_id", "run_id", "batch_no"]
        )
    for table in ("curate_signoffs", "curate_writes"):
        with op.batch_alter_table(table) as batch:
            batch.alter_column("tenant_id", existing_type=sa.String(200), nullable=False)
            batch.drop_index(f"ix_{table}_run_id")
            batch.create_index(f"ix_{table}_tenant_id_run_id", ["tenant_id", "run_id"])
    with op.batch_alter_table("curate_spans") as batch:
        batch.alter_column("tenant_id", existing_type=sa.String(200), nullable=False)
    if has_row_security(conn):
        for table in (*_FROM_RUN, "curate_spans"):
            enable_tenant_rls(conn, table)
        for table in sorted(SYSTEM_TABLES):
            enable_system_rls(conn, table)


def downgrade() -> None:
    conn = op.get_bind()
    if has_row_security(conn):
        for table in (*_FROM_RUN, "curate_spans", *sorted(SYSTEM_TABLES)):
            disable_tenant_rls(conn, table)
    for table in ("curate_signoffs", "curate_writes"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index(f"ix_{table}_tenant_id_run_id")
            batch.create_index(f"ix_{table}_run_id", ["run_id"])
            batch.drop_column("tenant_id")
    with op.batch_alter_table("curate_ledger") as batch:
        batch.drop_constraint("uq_curate_ledger_batch", type_="unique")
        batch.drop_constraint("pk_curate_ledger", type_="primary")
        batch.create_primary_key("pk_curate_ledger", ["run_id", "seq"])
        batch.create_unique_constraint("uq_curate_ledger_batch", ["run_id", "batch_no"])
        batch.drop_column("tenant_id")
    with op.batch_alter_table("curate_spans") as batch:
        batch.drop_column("tenant_id")
    with op.batch_alter_table("curate_runs") as batch:
        batch.drop_constraint("pk_curate_runs", type_="primary")
        batch.create_primary_key("pk_curate_runs", ["run_id"])
