"""What a checked plan writes when it is published, and what a rollback puts back (pure).

A publish commits new versions (the plan's targets, and kept memories that absorb their
duplicates) and retires the merged and duplicate sources that no new version rewrites. A
rollback brings each memory the publish wrote back to its snapshot state, unless it moved
since or its snapshot evidence is all revoked.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from memwarden_shared.contract.canonical import claim_key, memory_id_for
from memwarden_shared.contract.registry import Registry

Item = dict[str, Any]  # a snapshot item


@dataclass
class Commit:
    key: dict[str, str]
    memory_id: str
    value: Any
    members: list[Item]  # snapshot items whose evidence it carries
    valid_from: str
    expires_at: str | None
    label: str  # target name, or the kept source a duplicate folds into
    evidence: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.evidence = [e for m in self.members for e in m["evidence"]]


def fact_key_of(item: Item, tenant_id: str, claim: str) -> dict[str, str]:
    """The fact key of a snapshot item or plan target (``FACT_KEY_COLUMNS``)."""
    return {
        "tenant_id": tenant_id,
        "subject_id": item["subject_id"],
        "scope_kind": item["scope"]["kind"],
        "scope_key": item["scope"]["key"],
        "kind": item["kind"],
        "normalized_key": item["normalized_key"],
        "claim_key": claim,
    }


def parse_ts(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None


def switch_of(
    tenant_id: str, items: list[Item], plan: dict[str, Any], registry: Registry
) -> tuple[list[Commit], list[Item]]:
    """What a checked plan writes: new versions (targets, and kept memories that absorb
    duplicates) and the source versions that leave recall."""
    sources = {i["source"]: i for i in items}
    disp = {d["source"]: d for d in plan["dispositions"]}
    commits = [
        _target_commit(t, sources, tenant_id, registry)
        for t in sorted(plan["targets"], key=lambda t: t["target"])
    ]
    commits += [
        _head_commit(sources[head], [sources[d] for d in dups], tenant_id)
        for head, dups in sorted(_duplicates_by_head(disp).items())
    ]
    rewritten = {c.memory_id for c in commits}
    retire = [
        sources[s]
        for s, d in sorted(disp.items())
        if d["disposition"] in ("merge", "duplicate") and sources[s]["memory_id"] not in rewritten
    ]
    return commits, retire


def _duplicates_by_head(disp: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    heads: dict[str, list[str]] = defaultdict(list)
    for source, d in sorted(disp.items()):
        if d["disposition"] == "duplicate":
            heads[d["target"]].append(source)
    return heads


def _target_commit(
    target: dict[str, Any], sources: dict[str, Item], tenant_id: str, registry: Registry
) -> Commit:
    """A plan target as a new version of its own fact, formed from its source members."""
    spec = registry.get(target["kind"], target["normalized_key"])
    members = [sources[s] for s in sorted(target["sources"])]
    key = fact_key_of(
        target, tenant_id, claim_key(target["value"], bool(spec and spec.multi_valued))
    )
    expiries = [m["expires_at"] for m in members if m["expires_at"]]
    return Commit(
        key,
        memory_id_for(key),
        target["value"],
        members,
        min(m["valid_from"] for m in members),
        min(expiries) if expiries else None,
        target["target"],
    )


def _head_commit(head: Item, duplicates: list[Item], tenant_id: str) -> Commit:
    """A kept memory as a new version carrying its duplicates' evidence too."""
    return Commit(
        fact_key_of(head, tenant_id, head["claim_key"]),
        head["memory_id"],
        head["value"],
        [head, *duplicates],
        head["valid_from"],
        head["expires_at"],
        head["source"],
    )


def stale_sources(commits: list[Commit], retire: list[Item], current: dict[str, int]) -> list[str]:
    """What moved since the snapshot, given the current version of each memory: a member or
    retired source no longer at its snapshot version, and a fact a target writes that holds
    a version outside the plan."""
    stale = [r["source"] for r in retire if current.get(r["memory_id"]) != r["version"]]
    for c in commits:
        stale += [m["source"] for m in c.members if current.get(m["memory_id"]) != m["version"]]
        own = {m["memory_id"]: m["version"] for m in c.members}
        if c.memory_id in current and own.get(c.memory_id) != current[c.memory_id]:
            stale.append(f"{c.memory_id}:{current[c.memory_id]}")  # a fact outside the plan
    return stale


@dataclass
class Restoration:
    """What a rollback does to the memories a publish wrote."""

    back: list[tuple[str, Item, list[tuple[str, int]]]] = field(default_factory=list)
    withdraw: list[tuple[str, int]] = field(default_factory=list)  # current versions retired
    skipped: list[str] = field(default_factory=list)


def restoration(
    ids: list[str],
    after: dict[str, int],
    current: dict[str, int],
    snapshot: dict[str, Item],
    active: set[tuple[str, int]],
) -> Restoration:
    """For each memory the publish wrote (``ids``; ``after``: the version it left): bring
    the snapshot item back (``back``: memory_id, item, its still-active evidence), withdraw
    the current version when there is nothing to bring back, or skip a memory that moved
    since the publish."""
    out = Restoration()
    for mid in ids:
        if current.get(mid) != after.get(mid):
            out.skipped.append(f"{mid}: moved since publish")
            continue
        item = snapshot.get(mid)
        evidence = [
            (e["message_id"], e["revision"])
            for e in (item["evidence"] if item else [])
            if (e["message_id"], e["revision"]) in active
        ]
        if item is not None and evidence:
            out.back.append((mid, item, evidence))
        elif mid in current:
            out.withdraw.append((mid, current[mid]))
            if item is not None:
                out.skipped.append(f"{mid}: its evidence was revoked; not restored")
    return out
