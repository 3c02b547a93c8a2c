"""curate: runs, ledger, signoffs, publish blocks, writes, spans (SPEC §15)

Revision ID: 0008
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa


revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "curate_blocks",
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("subject_id", sa.String(length=200), nullable=False),
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", "subject_id", name=op.f("pk_curate_blocks")),
    )
    op.create_table(
        "curate_ledger",
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("entry", sa.String(length=20), nullable=False),
        sa.Column("batch_no", sa.Integer(), nullable=True),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("body_hash", sa.String(length=64), nullable=False),
        sa.Column("tokens", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("author", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("run_id", "seq", name=op.f("pk_curate_ledger")),
        sa.UniqueConstraint("run_id", "batch_no", name="uq_curate_ledger_batch"),
    )
    op.create_table(
        "curate_runs",
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("tenant_id", sa.String(length=200), nullable=False),
        sa.Column("subjects", sa.Text(), nullable=False),
        sa.Column("stage", sa.String(length=20), nullable=False),
        sa.Column("planner", sa.String(length=200), nullable=False),
        sa.Column("rewriter", sa.String(length=120), nullable=True),
        sa.Column("snapshot_hash", sa.String(length=64), nullable=False),
        sa.Column("package", sa.Text(), nullable=False),
        sa.Column("source_count", sa.Integer(), nullable=False),
        sa.Column("batch_size", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.Text(), server_default=sa.text("'{}'"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("run_id", name=op.f("pk_curate_runs")),
    )
    op.create_index(op.f("ix_curate_runs_tenant_id"), "curate_runs", ["tenant_id"], unique=False)
    op.create_table(
        "curate_signoffs",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("principal_id", sa.String(length=200), nullable=False),
        sa.Column("plan_hash", sa.String(length=64), nullable=False),
        sa.Column("verdict", sa.String(length=20), nullable=False),
        sa.Column("model", sa.String(length=120), nullable=True),
        sa.Column("statement", sa.Text(), server_default=sa.text("'{}'"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_curate_signoffs")),
    )
    op.create_index(op.f("ix_curate_signoffs_run_id"), "curate_signoffs", ["run_id"], unique=False)
    op.create_table(
        "curate_spans",
        sa.Column("memory_id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=200), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("start", sa.Integer(), nullable=False),
        sa.Column("end", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "memory_id", "version", "message_id", "revision", "start", name=op.f("pk_curate_spans")
        ),
    )
    op.create_table(
        "curate_writes",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("run_id", sa.String(length=100), nullable=False),
        sa.Column("phase", sa.String(length=20), nullable=False),
        sa.Column("action", sa.String(length=20), nullable=False),
        sa.Column("memory_id", sa.String(length=40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_curate_writes")),
    )
    op.create_index(op.f("ix_curate_writes_run_id"), "curate_writes", ["run_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_curate_writes_run_id"), table_name="curate_writes")
    op.drop_table("curate_writes")
    op.drop_table("curate_spans")
    op.drop_index(op.f("ix_curate_signoffs_run_id"), table_name="curate_signoffs")
    op.drop_table("curate_signoffs")
    op.drop_index(op.f("ix_curate_runs_tenant_id"), table_name="curate_runs")
    op.drop_table("curate_runs")
    op.drop_table("curate_ledger")
    op.drop_table("curate_blocks")
