"""review receipts, the commit switch and its quarantine, the read log, repair closing (issue 24)

Revision ID: 0014_seeds
Revises: 0013
Create Date: 2026-12-02

An owner's review decision gets its own receipt on its approvals row, linked to the
immutable pending receipt by its sha256. The commit switch (per tenant or "*") and the
proposals it held back; the append-only read log of recall and action reads.
"""

from alembic import op
import sqlalchemy as sa

from memwarden_shared.store.rls import disable_tenant_rls, enable_tenant_rls


revision = "0014_seeds"
down_revision = "0013"
branch_labels = None
depends_on = None

_NEW_TABLES = ("commit_switches", "switch_quarantine", "read_log")


def _bigid() -> sa.Column[int]:
    return sa.Column(
        "id",
        sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
        autoincrement=True,
        nullable=False,
    )


def upgrade() -> None:
    op.add_column("approvals", sa.Column("pending_fingerprint", sa.String(64), nullable=True))
    op.add_column("approvals", sa.Column("receipt", sa.Text(), nullable=True))
    op.add_column("actions", sa.Column("needs_repair_at", sa.DateTime(timezone=True)))
    op.add_column("actions", sa.Column("repair_note", sa.Text()))
    op.add_column("actions", sa.Column("repaired_by", sa.String(200)))
    op.add_column("actions", sa.Column("repaired_at", sa.DateTime(timezone=True)))
    op.create_table(
        "commit_switches",
        sa.Column("tenant_id", sa.String(200), nullable=False),
        sa.Column("state", sa.String(10), nullable=False),
        sa.Column("reason", sa.String(60), nullable=False),
        sa.Column("detail", sa.Text(), server_default=sa.text("'{}'"), nullable=False),
        sa.Column("changed_by", sa.String(200), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_commit_switches")),
    )
    op.create_table(
        "switch_quarantine",
        _bigid(),
        sa.Column("tenant_id", sa.String(200), nullable=False),
        sa.Column("proposal_id", sa.String(64), nullable=False),
        sa.Column("payload_hash", sa.String(64), nullable=False),
        sa.Column("subject_id", sa.String(200), nullable=False),
        sa.Column("would_be_decision", sa.String(20), nullable=False),
        sa.Column("would_be_reasons", sa.Text(), nullable=False),
        sa.Column("switch_reason", sa.String(60), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_switch_quarantine")),
        sa.UniqueConstraint("tenant_id", "proposal_id", name="uq_switch_quarantine_proposal"),
    )
    op.create_table(
        "read_log",
        _bigid(),
        sa.Column("tenant_id", sa.String(200), nullable=False),
        sa.Column("read_id", sa.String(32), nullable=False),
        sa.Column("surface", sa.String(20), nullable=False),
        sa.Column("principal_id", sa.String(200), nullable=False),
        sa.Column("subject_id", sa.String(200), nullable=False),
        sa.Column("memory_id", sa.String(40), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_read_log")),
    )
    op.create_index("ix_read_log_memory", "read_log", ["tenant_id", "memory_id", "read_at"])
    op.create_index("ix_read_log_read_at", "read_log", ["read_at"])
    for table in _NEW_TABLES:
        enable_tenant_rls(op.get_bind(), table)


def downgrade() -> None:
    for table in _NEW_TABLES:
        disable_tenant_rls(op.get_bind(), table)
    op.drop_index("ix_read_log_read_at", table_name="read_log")
    op.drop_index("ix_read_log_memory", table_name="read_log")
    op.drop_table("read_log")
    op.drop_table("switch_quarantine")
    op.drop_table("commit_switches")
    # batch mode: SQLite rebuilds the table; PostgreSQL drops in place
    with op.batch_alter_table("actions") as batch:
        for column in ("repaired_at", "repaired_by", "repair_note", "needs_repair_at"):
            batch.drop_column(column)
    with op.batch_alter_table("approvals") as batch:
        batch.drop_column("receipt")
        batch.drop_column("pending_fingerprint")
