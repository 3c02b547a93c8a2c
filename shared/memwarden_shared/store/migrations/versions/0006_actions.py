"""action gate: actions, the memory versions they read, derived_from on proposals

Revision ID: 0006
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _ts() -> sa.DateTime:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.add_column(sa.Column("derived_from", sa.Text(), nullable=True))

    op.create_table(
        "actions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True),
        sa.Column("action_id", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("subject_id", sa.String(length=200), nullable=False),
        sa.Column("requested_by", sa.String(length=200), nullable=False),
        sa.Column("intent", sa.String(length=100), nullable=False),
        sa.Column("params_json", sa.Text(), nullable=False),
        sa.Column("purpose", sa.String(length=100), nullable=True),
        sa.Column("idempotency_key", sa.String(length=200), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("uses_json", sa.Text(), nullable=False),
        sa.Column("decision", sa.String(length=20), nullable=False),
        sa.Column("reasons", sa.Text(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("approved_by", sa.String(length=200), nullable=True),
        sa.Column("approved_at", _ts(), nullable=True),
        sa.Column("external_ref", sa.String(length=500), nullable=True),
        sa.Column("outcome_at", _ts(), nullable=True),
        sa.Column("state_reason", sa.String(length=60), nullable=True),
        sa.Column("decided_at", _ts(), nullable=False),
        sa.Column("updated_at", _ts(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_actions")),
        sa.UniqueConstraint("action_id", name=op.f("uq_actions_action_id")),
        sa.UniqueConstraint(
            "tenant_id", "idempotency_key", name=op.f("uq_actions_tenant_id_idempotency_key")
        ),
    )
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_actions_tenant_id_state"), ["tenant_id", "state"], unique=False
        )

    op.create_table(
        "action_uses",
        sa.Column("action_id", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("memory_id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("action_id", "memory_id", "version", name=op.f("pk_action_uses")),
    )
    with op.batch_alter_table("action_uses", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_action_uses_memory_id_version"), ["memory_id", "version"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("action_uses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_action_uses_memory_id_version"))
    op.drop_table("action_uses")
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_actions_tenant_id_state"))
    op.drop_table("actions")
    with op.batch_alter_table("proposals", schema=None) as batch_op:
        batch_op.drop_column("derived_from")
