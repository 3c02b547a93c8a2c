"""principals unique per tenant

Revision ID: 0007
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa


revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A principal's name is unique within its tenant, not across tenants: two customers may
    # both call their reviewer "owner". batch mode recreates the table on SQLite.
    with op.batch_alter_table("principals", schema=None) as batch_op:
        batch_op.drop_constraint("pk_principals", type_="primary")
        batch_op.create_primary_key("pk_principals", ["tenant_id", "principal_id"])
        batch_op.add_column(sa.Column("key_rotated_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("principals", schema=None) as batch_op:
        batch_op.drop_column("key_rotated_at")
        batch_op.drop_constraint("pk_principals", type_="primary")
        batch_op.create_primary_key("pk_principals", ["principal_id"])
