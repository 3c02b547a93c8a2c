"""delivery guarantees: outbox lifecycle and lease, dead letters, proposal candidates

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("consumed_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("publish_count", sa.Integer(), server_default=sa.text("0"), nullable=False)
        )
        batch_op.add_column(sa.Column("ordering_key", sa.String(length=420), nullable=True))
        batch_op.add_column(sa.Column("ordering_seq", sa.BigInteger(), nullable=True))
    # Rows sent before this revision were consumed by the old pipeline (or never will be
    # tracked): count them consumed so they are not redelivered on upgrade.
    op.execute("UPDATE outbox SET consumed_at = sent_at WHERE sent_at IS NOT NULL")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(
            "ix_outbox_unconsumed",
            ["sent_at"],
            unique=False,
            postgresql_where=sa.text("consumed_at IS NULL"),
            sqlite_where=sa.text("consumed_at IS NULL"),
        )
        batch_op.create_index(
            "ix_outbox_unconsumed_order",
            ["ordering_key", "ordering_seq"],
            unique=False,
            postgresql_where=sa.text("consumed_at IS NULL"),
            sqlite_where=sa.text("consumed_at IS NULL"),
        )

    op.create_table(
        "dead_letters",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("stage", sa.String(length=40), nullable=False),
        sa.Column("outbox_id", sa.BigInteger(), nullable=True),
        sa.Column("event_key", sa.String(length=300), nullable=False),
        sa.Column("topic", sa.String(length=40), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("error_class", sa.String(length=200), nullable=False),
        sa.Column("error_message", sa.String(length=500), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_dead_letters")),
        sa.UniqueConstraint("stage", "event_key", name=op.f("uq_dead_letters_stage_event_key")),
    )
    op.create_table(
        "proposal_candidates",
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("proposal_id", sa.String(length=64), nullable=False),
        sa.Column("message_id", sa.String(length=200), nullable=False),
        sa.Column("body_json", sa.Text(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "proposal_id", name=op.f("pk_proposal_candidates")),
    )
    with op.batch_alter_table("proposal_candidates", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_proposal_candidates_tenant_id_message_id"),
            ["tenant_id", "message_id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("proposal_candidates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_proposal_candidates_tenant_id_message_id"))
    op.drop_table("proposal_candidates")
    op.drop_table("dead_letters")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(
            "ix_outbox_unconsumed_order",
            postgresql_where=sa.text("consumed_at IS NULL"),
            sqlite_where=sa.text("consumed_at IS NULL"),
        )
        batch_op.drop_index(
            "ix_outbox_unconsumed",
            postgresql_where=sa.text("consumed_at IS NULL"),
            sqlite_where=sa.text("consumed_at IS NULL"),
        )
        batch_op.drop_column("ordering_seq")
        batch_op.drop_column("ordering_key")
        batch_op.drop_column("publish_count")
        batch_op.drop_column("consumed_at")
        batch_op.drop_column("claimed_until")
