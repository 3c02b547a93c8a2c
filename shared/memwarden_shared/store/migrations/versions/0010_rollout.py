"""rollout: write counts per scope and review holds (canary rollback, write-rate anomaly)

Revision ID: 0010
Revises: 0008
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa


revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "write_counts",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("scope", sa.String(length=320), nullable=False),
        sa.Column("counted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("proposals", sa.Integer(), nullable=False),
        sa.Column("committed", sa.Integer(), nullable=False),
        sa.Column("noop", sa.Integer(), nullable=False),
        sa.Column("needs_confirmation", sa.Integer(), nullable=False),
        sa.Column("confirm_replace", sa.Integer(), nullable=False),
        sa.Column("quarantined", sa.Integer(), nullable=False),
        sa.Column("conflicted", sa.Integer(), nullable=False),
        sa.Column("rejected", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_write_counts")),
    )
    op.create_index(
        op.f("ix_write_counts_scope_tenant_id_counted_at"),
        "write_counts",
        ["scope", "tenant_id", "counted_at"],
        unique=False,
    )
    op.create_index(
        op.f("ix_write_counts_counted_at"), "write_counts", ["counted_at"], unique=False
    )
    op.create_table(
        "review_holds",
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("scope", sa.String(length=320), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=False),
        sa.Column("detail", sa.Text(), server_default=sa.text("'{}'"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cleared_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("cleared_by", sa.String(length=200), nullable=True),
        sa.PrimaryKeyConstraint("tenant_id", "scope", name=op.f("pk_review_holds")),
    )


def downgrade() -> None:
    op.drop_table("review_holds")
    op.drop_index(op.f("ix_write_counts_counted_at"), table_name="write_counts")
    op.drop_index(op.f("ix_write_counts_scope_tenant_id_counted_at"), table_name="write_counts")
    op.drop_table("write_counts")
