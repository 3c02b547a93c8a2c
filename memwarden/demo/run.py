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
from sqlalchemy import Engine

from memwarden.demo.refusals import refused_proposals
from memwarden.reasons import reasons_in_words
from memwarden_shared.contract.models import Turn
from memwarden_shared.detect.secrets import find_secrets
from memwarden_shared.store.db import engine_for, migrate
from memwarden_usecases.drain import drain
from memwarden_usecases.explain import explain_turn
from memwarden_usecases.ingest import ingest
from memwarden_usecases.inspect import message_outcomes
from memwarden_usecases.recall import recall
from memwarden_usecases.retract import revoke


def load_demo_turns(tenant_id: str) -> list[Turn]:
    text = resources.files("memwarden.demo").joinpath("conversations.jsonl").read_text("utf-8")
    return [
        Turn.model_validate({**json.loads(line), "tenant_id": tenant_id})
        for line in text.splitlines()
        if line.strip()
    ]


def _outcomes(engine: Engine, tenant_id: str, turns: list[Turn]) -> list[dict[str, Any]]:
    """One table row per proposal, and per message the extractor proposed nothing from,
    with the extractor's own reason for declining it, in words."""
    by_id = {t.message_id: t for t in turns}
    return [
        {
            "message": o.message_id,
            "subject": o.subject_id,
            "source": o.source,
            "text": _shown(o.text),
            "key": o.normalized_key or "—",
            "value": "—" if o.value is None else o.value,
            "decision": o.decision or "not proposed",
            "reasons": reasons_in_words(o.reasons)
            if o.decision
            else _declined(by_id.get(o.message_id)),
        }
        for o in message_outcomes(engine, tenant_id)
    ]


def _declined(turn: Turn | None) -> str:
    if turn is None:
        return "unknown message"
    codes = dict.fromkeys(c for s in explain_turn(turn) for c in s.declined)
    return reasons_in_words(list(codes)) or "no candidate"


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
    ingest(engine, turns)
    drain(engine)
    rows = _outcomes(engine, tenant, turns)
    table = Table(title=f"memwarden demo — tenant {tenant}", show_lines=False)
    # ids fold (they have no spaces); prose wraps between words at the console's width,
    # which rich reads from the terminal or from COLUMNS when piped
    for col in ("message", "text", "key", "value", "decision", "reasons"):
        table.add_column(col, overflow="fold" if col in ("message", "key") else "ellipsis")
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
        got = [m.value for m in recall(engine, tenant, subject)]
        console.print(f"recall({subject}) → {json.dumps(got, ensure_ascii=False)}")
    revoke(engine, tenant, "a2")
    console.print('[bold]revoked message a2[/bold] ("I prefer pnpm …")')
    got = [m.value for m in recall(engine, tenant, "alice")]
    console.print(f"recall(alice) before the cascade runs → {json.dumps(got)}")
    drain(engine)
    got = [m.value for m in recall(engine, tenant, "alice")]
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
        table.add_column(col)
    for refusal in refused_proposals(engine, tenant):
        table.add_row(
            refusal.attempt,
            refusal.receipt.decision.value,
            reasons_in_words(refusal.receipt.reasons),
        )
    console.print(table)
    console.print(
        "Nothing above became a memory: the gate re-reads each cited message and recomputes "
        "every hash, whatever the extractor claims. Receipts keep ids and reasons, never values."
    )
