"""write counts in time buckets, one row per scope, bucket and writer process

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01

Until now the gate appended one row per scope per batch, so the windowed sums the anomaly
detector and the canary monitor run on every batch grew with traffic over the baseline
(a day): a busy extractor version's scope reached millions of rows. Now a gate process adds
its counts to the row of its own (scope, tenant, bucket, writer): rows per scope are bounded
by buckets x writer processes, whatever the traffic. Rows written before keep their own
writer name, so they stay distinct under the new unique index.
"""

from alembic import op
import sqlalchemy as sa


revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "write_counts",
        sa.Column("writer", sa.String(length=64), server_default=sa.text("''"), nullable=False),
    )
    op.execute("UPDATE write_counts SET writer = 'row-' || CAST(id AS VARCHAR(20))")
    op.drop_index(op.f("ix_write_counts_scope_tenant_id_counted_at"), table_name="write_counts")
    op.create_index(
        op.f("ix_write_counts_scope_tenant_id_counted_at_writer"),
        "write_counts",
        ["scope", "tenant_id", "counted_at", "writer"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_index(
        op.f("ix_write_counts_scope_tenant_id_counted_at_writer"), table_name="write_counts"
    )
    op.create_index(
        op.f("ix_write_counts_scope_tenant_id_counted_at"),
        "write_counts",
        ["scope", "tenant_id", "counted_at"],
        unique=False,
    )
    op.drop_column("write_counts", "writer")
