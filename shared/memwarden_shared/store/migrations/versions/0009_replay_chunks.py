"""replay chunks: the plan and the chunks of a distributed replay

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa


revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "replay_plans",
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("files", sa.Text(), nullable=False),
        sa.Column("default_tenant", sa.String(length=200), nullable=True),
        sa.Column("chunks", sa.Integer(), nullable=False),
        sa.Column("turns", sa.BigInteger(), nullable=False),
        sa.Column("counters", sa.Text(), nullable=False),
        sa.Column("planned_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_replay_plans")),
    )
    op.create_table(
        "replay_chunks",
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("chunk_no", sa.Integer(), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("lane", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("lines", sa.Text(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("claimed_by", sa.String(length=200), nullable=True),
        sa.Column("claim_token", sa.String(length=32), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("done_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.Column("counters", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("run_id", "chunk_no", name=op.f("pk_replay_chunks")),
        sa.UniqueConstraint("run_id", "lane", "seq", name=op.f("uq_replay_chunks_run_id_lane_seq")),
    )
    op.create_index(op.f("ix_replay_chunks_run_id_done_at"), "replay_chunks", ["run_id", "done_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_replay_chunks_run_id_done_at"), table_name="replay_chunks")
    op.drop_table("replay_chunks")
    op.drop_table("replay_plans")
