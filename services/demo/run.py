"""``memwarden demo``: a bundled English and Chinese conversation through the whole pipeline."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from importlib import resources
from typing import Any

from rich.console import Console
from rich.table import Table
from sqlalchemy import Engine, select

from services.ingest.io import ingest_turns
from services.pipeline import drain
from services.recall.query import recall
from services.revalidation.commands import revoke_message
from shared.db import unit_of_work
from shared.models import Turn
from shared.schema import messages, proposals


def load_demo_turns(tenant_id: str) -> list[Turn]:
    text = resources.files("services.demo").joinpath("conversations.jsonl").read_text("utf-8")
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
                    "text": m.text if len(m.text) <= 48 else m.text[:45] + "…",
                    "key": p.normalized_key if p else "—",
                    "value": json.loads(p.value_json) if p and p.value_json else "—",
                    "decision": p.decision if p else "not proposed",
                    "reasons": ", ".join(json.loads(p.reasons)) if p else "extractor declined",
                }
            )
    return rows


def run_demo(engine: Engine, console: Console) -> int:
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
    console.print(f"\nInspect: memwarden memories --tenant {tenant} --subject alice")
    return 0
