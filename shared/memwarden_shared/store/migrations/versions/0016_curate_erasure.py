"""curate_runs.erased_at: a forget erased items of the run's snapshot package (issue 21)

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03

A forget replaces the package's items that hold forgotten content with tombstones; the
package then no longer matches its hash. ``erased_at`` tells that erasure from tampering.
"""

from alembic import op
import sqlalchemy as sa


revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("curate_runs", sa.Column("erased_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("curate_runs") as batch:
        batch.drop_column("erased_at")
