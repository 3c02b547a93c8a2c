"""The plan: the fold of the append-only ledger, and its hash. Pure.

Batch entries append what the rewriter said, as it said it (a source named twice stays
named twice, for the coverage check to refuse). An edit entry replaces the dispositions
and targets it names. ``plan_hash = sha256(JCS({snapshot_hash, dispositions, targets,
disagreements}))``: any edit changes it, which voids every review and attestation.
"""

from __future__ import annotations

from typing import Any

from memwarden_shared.contract.canonical import jcs, sha256_hex

DISPOSITIONS = ("keep", "merge", "duplicate", "review")


def fold(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """``entries``: ledger bodies in ``seq`` order, each with its ``entry`` kind."""
    dispositions: list[dict[str, Any]] = []
    targets: list[dict[str, Any]] = []
    disagreements: list[dict[str, Any]] = []
    for entry in entries:
        body = entry["body"]
        if entry["entry"] == "edit":
            named = {d.get("source") for d in body.get("dispositions", [])}
            dispositions = [d for d in dispositions if d.get("source") not in named]
            renamed = {t.get("target") for t in body.get("targets", [])}
            targets = [t for t in targets if t.get("target") not in renamed]
        dispositions.extend(body.get("dispositions", []))
        targets.extend(body.get("targets", []))
        disagreements.extend(body.get("disagreements", []))
    return {"dispositions": dispositions, "targets": targets, "disagreements": disagreements}


def plan_hash(snapshot_hash: str, plan: dict[str, Any]) -> str:
    return sha256_hex(
        jcs(
            {
                "snapshot_hash": snapshot_hash,
                "dispositions": sorted(plan["dispositions"], key=_stable),
                "targets": sorted(plan["targets"], key=_stable),
                "disagreements": sorted(plan["disagreements"], key=_stable),
            }
        )
    )


def _stable(obj: Any) -> bytes:
    return jcs(obj)


def counts(plan: dict[str, Any]) -> dict[str, int]:
    out = {d: 0 for d in DISPOSITIONS}
    for d in plan["dispositions"]:
        name = d.get("disposition")
        if name in out:
            out[name] += 1
    out["targets"] = len(plan["targets"])
    out["disagreements"] = len(plan["disagreements"])
    return out
