"""mask secrets at ingest; erase forgotten message text

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("masked_spans", sa.Text(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "secret_unlocated", sa.Boolean(), server_default=sa.text("false"), nullable=False
            )
        )
        batch_op.add_column(sa.Column("erased_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(
            "ix_messages_session_latest", ["tenant_id", "session_id", "created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.drop_index("ix_messages_session_latest")
        batch_op.drop_column("erased_at")
        batch_op.drop_column("secret_unlocated")
        batch_op.drop_column("masked_spans")
