"""``memwarden demo``: a bundled English and Chinese conversation through the whole pipeline,
then external proposals the gate refuses.

The demo always runs embedded, on a SQLite file of its own (a fresh temporary directory
unless ``--data-dir`` names one), whatever ``MEMWARDEN_DATABASE_URL`` and
``MEMWARDEN_BROKER_URL`` say: a demo must never write into a real deployment.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from sqlalchemy import Engine, select

from memwarden.demo.refusals import refused_proposals
from memwarden_ingest.io import ingest_turns
from memwarden_recall.query import recall
from memwarden_revalidation.commands import revoke_message
from memwarden_shared.contract.models import Turn
from memwarden_shared.detect.secrets import find_secrets
from memwarden_shared.store.db import engine_for, migrate, unit_of_work
from memwarden_shared.store.schema import messages, proposals
from memwarden_usecases.pipeline import drain


def load_demo_turns(tenant_id: str) -> list[Turn]:
    text = resources.files("memwarden.demo").joinpath("conversations.jsonl").read_text("utf-8")
    return [
        Turn.model_validate({**json.loads(line), "tenant_id": tenant_id})
        for line in text.splitlines()
        if line.strip()
    ]


def _outcomes(engine: Engine, tenant_id: str) -> list[dict[str, Any]]:
    with unit_of_work(engine) as uow:
        msgs = uow.conn.execute(
            select(messages).where(messages.c.tenant_id == tenant_id).order_by(messages.c.id)
        ).all()
        props = uow.conn.execute(
            select(proposals).where(proposals.c.tenant_id == tenant_id).order_by(proposals.c.id)
        ).all()
    by_message: dict[str, list[Any]] = {}
    for p in props:
        by_message.setdefault(p.message_id, []).append(p)
    rows = []
    for m in msgs:
        for p in by_message.get(m.message_id, [None]):
            rows.append(
                {
                    "message": m.message_id,
                    "subject": m.subject_id,
                    "source": m.source,
                    "text": _shown(m.text),
                    "key": p.normalized_key if p else "—",
                    "value": json.loads(p.value_json) if p and p.value_json else "—",
                    "decision": p.decision if p else "not proposed",
                    "reasons": ", ".join(json.loads(p.reasons)) if p else "extractor declined",
                }
            )
    return rows


@contextmanager
def demo_store(data_dir: Path | None) -> Iterator[tuple[Engine, Path, bool]]:
    """A migrated SQLite store in ``data_dir``, or in a temporary directory removed after;
    yields (engine, directory, kept)."""
    with tempfile.TemporaryDirectory(prefix="memwarden-demo-") as scratch:
        directory = Path(data_dir) if data_dir else Path(scratch)
        engine = engine_for(f"sqlite:///{directory / 'memwarden.db'}")
        try:
            migrate(engine)
            yield engine, directory, data_dir is not None
        finally:
            engine.dispose()


def _shown(text: str) -> str:
    """The message as the table shows it: detected secrets masked, long text cut."""
    for found in find_secrets(text):
        text = text[: found.start] + "█" * (found.end - found.start) + text[found.end :]
    return text if len(text) <= 48 else text[:45] + "…"


def run_demo(engine: Engine, console: Console, *, kept_in: Path | None = None) -> int:
    tenant = "demo-" + uuid.uuid4().hex[:8]
    turns = load_demo_turns(tenant)
    ingest_turns(turns, engine=engine)
    drain(engine)
    rows = _outcomes(engine, tenant)
    table = Table(title=f"memwarden demo — tenant {tenant}", show_lines=False)
    for col in ("message", "text", "key", "value", "decision", "reasons"):
        table.add_column(col, overflow="fold")
    for r in rows:
        table.add_row(
            r["message"], r["text"], r["key"], str(r["value"]), r["decision"], r["reasons"]
        )
    console.print(table)
    summary = Table(title="decisions")
    summary.add_column("decision")
    summary.add_column("count", justify="right")
    for decision, count in sorted(Counter(r["decision"] for r in rows).items()):
        summary.add_row(decision, str(count))
    console.print(summary)
    for subject in ("alice", "li"):
        got = [m.value for m in recall(tenant, subject, engine=engine)]
        console.print(f"recall({subject}) → {json.dumps(got, ensure_ascii=False)}")
    revoke_message(tenant, "a2", engine=engine)
    console.print('[bold]revoked message a2[/bold] ("I prefer pnpm …")')
    got = [m.value for m in recall(tenant, "alice", engine=engine)]
    console.print(f"recall(alice) before the cascade runs → {json.dumps(got)}")
    drain(engine)
    got = [m.value for m in recall(tenant, "alice", engine=engine)]
    console.print(f"recall(alice) after the cascade → {json.dumps(got)}")
    _show_refusals(engine, tenant, console)
    if kept_in is not None:
        console.print(
            f"\nInspect: MEMWARDEN_DATA_DIR={kept_in} memwarden memories "
            f"--tenant {tenant} --subject alice"
        )
    else:
        console.print("\nThe demo store was temporary; pass --data-dir DIR to keep it.")
    return 0


def _show_refusals(engine: Engine, tenant: str, console: Console) -> None:
    table = Table(title="what the gate refuses: proposals from an external extractor")
    for col in ("attempt", "decision", "receipt reasons"):
        table.add_column(col, overflow="fold")
    for refusal in refused_proposals(engine, tenant):
        table.add_row(
            refusal.attempt, refusal.receipt.decision.value, ", ".join(refusal.receipt.reasons)
        )
    console.print(table)
    console.print(
        "Nothing above became a memory: the gate re-reads each cited message and recomputes "
        "every hash, whatever the extractor claims. Receipts keep ids and reasons, never values."
    )
