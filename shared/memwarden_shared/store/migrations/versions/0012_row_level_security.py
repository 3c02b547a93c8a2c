"""row-level security on every tenant table (issue 13 item 7)

Revision ID: 0012
Revises: 0008
Create Date: 2026-11-30

Enables and forces the ``tenant_isolation`` policy on every table that has a ``tenant_id``
column when this revision runs. Tables created by later revisions call
``memwarden_shared.store.rls.enable_tenant_rls`` themselves; ``memwarden migrate`` refuses to
finish while any tenant table lacks the policy. No-op on SQLite.
"""

from alembic import op
from memwarden_shared.store.dialect import has_row_security
from memwarden_shared.store.rls import disable_tenant_rls, enable_tenant_rls, tenant_tables

revision = "0012"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    if not has_row_security(conn):
        return
    for table in tenant_tables(conn):
        enable_tenant_rls(conn, table)


def downgrade() -> None:
    conn = op.get_bind()
    if not has_row_security(conn):
        return
    for table in tenant_tables(conn):
        disable_tenant_rls(conn, table)
