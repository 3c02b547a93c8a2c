"""The coverage check (SPEC §15.3) and the gate's checks on what a plan would write. Pure.

Facts in (snapshot items, folded plan, registry), a list of problems out; an empty list is
the only pass. Nothing from the rewriter is trusted: not its source ids, not its targets,
not its values. A merged or kept-duplicate value must be said in every evidence sentence
it will carry (memwarden_shared.detect.grounding), so a later revocation of any of them is honest.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from memwarden_curate.plan import DISPOSITIONS
from memwarden_curate.rules import grounded_in_all
from memwarden_shared.contract.canonical import claim_text
from memwarden_shared.contract.registry import Registry, Sensitivity
from memwarden_shared.detect.secrets import contains_secret


def problem(code: str, detail: str, **where: str) -> dict[str, str]:
    return {"code": code, **where, "detail": detail}


def check(
    items: list[dict[str, Any]], plan: dict[str, Any], registry: Registry
) -> list[dict[str, str]]:
    sources = {i["source"]: i for i in items}
    found = _coverage(sources, plan)
    targets: dict[str, dict[str, Any]] = {}
    for t in plan["targets"]:
        tid = str(t.get("target"))
        if tid in targets:
            found.append(problem("target_defined_twice", "two targets share a name", target=tid))
        targets[tid] = t
    merged_into, bad = _dispositions(sources, plan, targets, registry)
    found += bad
    for tid, t in sorted(targets.items()):
        found.extend(_target(tid, t, merged_into[tid], sources, registry))
    return found


def _coverage(sources: dict[str, dict[str, Any]], plan: dict[str, Any]) -> list[dict[str, str]]:
    """Every snapshot source has exactly one disposition, and nothing else has one."""
    found = []
    named = Counter(str(d.get("source")) for d in plan["dispositions"])
    for source in sorted(sources):
        if named[source] == 0:
            found.append(problem("missing_disposition", "no disposition", source=source))
        elif named[source] > 1:
            found.append(
                problem("several_dispositions", f"{named[source]} dispositions", source=source)
            )
    for name in sorted(set(named) - set(sources)):
        found.append(problem("unknown_source", "not in the snapshot", source=name))
    return found


def _dispositions(
    sources: dict[str, dict[str, Any]],
    plan: dict[str, Any],
    targets: dict[str, dict[str, Any]],
    registry: Registry,
) -> tuple[dict[str, list[str]], list[dict[str, str]]]:
    """Each source's disposition checked; the sources merged into each target."""
    found = []
    by_source = {str(d.get("source")): d for d in plan["dispositions"]}
    merged_into: dict[str, list[str]] = {tid: [] for tid in targets}
    for source, d in sorted(by_source.items()):
        kind = d.get("disposition")
        if source not in sources:
            continue
        if kind not in DISPOSITIONS:
            found.append(problem("unknown_disposition", str(kind), source=source))
        elif kind == "merge" and str(d.get("target")) not in targets:
            found.append(problem("unknown_target", f"merge into {d.get('target')}", source=source))
        elif kind == "merge":
            merged_into[str(d.get("target"))].append(source)
        elif kind == "duplicate":
            found.extend(_duplicate(source, str(d.get("target")), sources, by_source, registry))
    return merged_into, found


def _duplicate(
    source: str,
    of: str,
    sources: dict[str, dict[str, Any]],
    by_source: dict[str, dict[str, Any]],
    registry: Registry,
) -> list[dict[str, str]]:
    if of not in sources or of == source:
        return [problem("unknown_target", f"duplicate of {of}", source=source)]
    if by_source.get(of, {}).get("disposition") != "keep":
        return [problem("duplicate_of_not_kept", f"{of} is not kept", source=source)]
    dup, head = sources[source], sources[of]
    if _fact(dup)[:3] != _fact(head)[:3]:
        return [problem("cross_subject", f"{of} belongs to another subject/scope", source=source)]
    if not grounded_in_all(head["value"], [dup], registry):
        # the kept memory will carry this source's evidence: it must say the same claim
        return [problem("duplicate_not_grounded", f"{of}'s value is not said here", source=source)]
    return []


def _fact(item: dict[str, Any]) -> tuple[str, ...]:
    return (
        item["subject_id"],
        item["scope"]["kind"],
        item["scope"]["key"],
        item["kind"],
        item["normalized_key"],
    )


def _target(
    tid: str,
    t: dict[str, Any],
    merged: list[str],
    sources: dict[str, dict[str, Any]],
    registry: Registry,
) -> list[dict[str, str]]:
    if not merged:
        return [problem("target_without_sources", "a new claim with no evidence", target=tid)]
    listed = sorted(str(s) for s in t.get("sources", []))
    if listed != sorted(merged):
        return [problem("target_sources_mismatch", "sources differ from merges", target=tid)]
    members = [sources[s] for s in merged]
    try:
        fact = (
            str(t["subject_id"]),
            str(t["scope"]["kind"]),
            str(t["scope"]["key"]),
            str(t["kind"]),
            str(t["normalized_key"]),
        )
        value = t["value"]
    except (KeyError, TypeError):
        return [problem("target_malformed", "needs subject, scope, kind, key, value", target=tid)]
    if {m["subject_id"] for m in members} != {fact[0]}:
        return [problem("cross_subject", "sources of several subjects", target=tid)]
    if fact[1:3] not in {_fact(m)[1:3] for m in members}:
        return [problem("scope_changed", "scope is none of its sources'", target=tid)]
    return _target_value(tid, fact, value, members, registry)


Fact = tuple[str, str, str, str, str]  # subject, scope kind, scope key, kind, key


def _target_value(
    tid: str,
    fact: Fact,
    value: Any,
    members: list[dict[str, Any]],
    registry: Registry,
) -> list[dict[str, str]]:
    """A target's value: valid for its key, no secret, not moved into a sensitive key, and
    said in every member's evidence."""
    spec = registry.get(fact[3], fact[4])
    if spec is None:
        return [problem("unknown_key", f"{fact[3]} {fact[4]}", target=tid)]
    if (reason := spec.validate(value)) is not None:
        return [problem("value_invalid", reason, target=tid)]
    if contains_secret(claim_text(value)):
        return [problem("secret", "the value holds a secret", target=tid)]
    if spec.sensitivity != Sensitivity.NORMAL and fact[3:] not in {_fact(m)[3:] for m in members}:
        return [problem("sensitive_key", "moved into a sensitive key", target=tid)]
    not_said = [m["source"] for m in members if not grounded_in_all(value, [m], registry, fact[3:])]
    if not_said:
        return [problem("value_not_grounded", f"not said by {', '.join(not_said)}", target=tid)]
    return []
