"""The built-in rules rewriter (SPEC §15.2). Pure: snapshot items in, one batch's
dispositions out. English and Chinese.

Within one subject, scope and key:
* **normalised duplicates** (the same content words, ignoring case, width, punctuation,
  word order and function words) -> ``duplicate`` of the earliest;
* **near-duplicate notes** (one's words inside the other's, or nearly the same) -> ``merge``
  into a target whose value is a member's value grounded in *every* member's evidence
  (so each kept evidence link really supports it), else ``review``;
* **superseded chains** (a later note says it changed an earlier one: "instead of",
  "no longer", "不再", "改用" …) and **conflicts** (near-duplicates disagreeing on a
  negation, number or date) -> ``review`` with a dated disagreement. A newer record never
  wins silently.
Everything else is ``keep``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from typing import Any

from memwarden_shared.contract.canonical import sha256_hex
from memwarden_shared.contract.registry import Registry
from memwarden_shared.detect.grounding import STOP_WORDS, ungrounded_reason
from memwarden_shared.text.classifier import Feature, classify
from memwarden_shared.text.fold import Level, fold_text

REWRITER = "rules-1"
NEAR = 0.8  # Jaccard of two notes' words above which they say nearly the same

_LATIN = re.compile(r"[a-z]+|[0-9]+(?:[.:][0-9]+)*")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_NUMBER = re.compile(r"\d+(?:[.:]\d+)*")
_CJK_STOP = frozenset("我的了是在也就都")
_CHANGE = re.compile(
    r"\b(?:instead of|no longer|not any ?more|switched (?:from|to)|changed (?:from|to)|"
    r"moved (?:from|to)|from now on)\b|不再|改用|换成|改成|改为|改到|以后都|从现在起",
)


def content(value: Any) -> frozenset[str]:
    """Content tokens: Latin words minus function words, numbers, CJK bigrams (a lone
    character counts itself), of the value folded at ``SPACE``."""
    text = fold_text(str(value), Level.SPACE)
    tokens = {t for t in _LATIN.findall(text) if t not in STOP_WORDS}
    for run in _CJK.findall(text):
        run = "".join(ch for ch in run if ch not in _CJK_STOP) or run
        tokens.update([run] if len(run) == 1 else (run[i : i + 2] for i in range(len(run) - 1)))
    return frozenset(tokens)


def _numbers(value: Any) -> frozenset[str]:
    return frozenset(_NUMBER.findall(fold_text(str(value), Level.WIDTH)))


def _negated(value: Any) -> bool:
    return classify(str(value)).has(Feature.NEGATED)


def _said_at(item: dict[str, Any]) -> str:
    dates = [e["said_at"] for e in item["evidence"] if e.get("said_at")]
    return str(min(dates) if dates else item["valid_from"])


def grounded_in_all(
    value: Any, items: list[dict[str, Any]], registry: Registry, key: tuple[str, str] | None = None
) -> bool:
    """``value`` (filed under ``key``, default each item's own) is said in every evidence
    sentence of every item (shared/memwarden_shared/detect/grounding.py)."""
    for item in items:
        spec = registry.get(*(key or (item["kind"], item["normalized_key"])))
        if spec is None or not item["evidence"]:
            return False
        for ev in item["evidence"]:
            if ev.get("quote") is None:
                return False
            anchor = dt.datetime.fromisoformat(ev["said_at"].replace("Z", "+00:00"))
            if ungrounded_reason(value, ev["quote"], spec, anchor) is not None:
                return False
    return True


def _group_key(item: dict[str, Any]) -> tuple[str, ...]:
    return (
        item["subject_id"],
        item["scope"]["kind"],
        item["scope"]["key"],
        item["kind"],
        item["normalized_key"],
    )


def rewrite(items: list[dict[str, Any]], registry: Registry, batch_no: int) -> dict[str, Any]:
    """One ledger batch body for ``items`` (whole subjects): a disposition for each."""
    out: dict[str, dict[str, Any]] = {}
    targets: list[dict[str, Any]] = []
    disagreements: list[dict[str, Any]] = []
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        groups[_group_key(item)].append(item)
    for members in groups.values():
        members.sort(key=lambda i: (_said_at(i), i["source"]))
        _rewrite_group(members, registry, out, targets, disagreements)
    for item in items:
        out.setdefault(item["source"], {"disposition": "keep", "reason": "distinct"})
    return {
        "batch_no": batch_no,
        "rewriter": REWRITER,
        "sources": sorted(i["source"] for i in items),
        "dispositions": [{"source": s, **d} for s, d in sorted(out.items())],
        "targets": targets,
        "disagreements": disagreements,
    }


def _rewrite_group(
    members: list[dict[str, Any]],
    registry: Registry,
    out: dict[str, dict[str, Any]],
    targets: list[dict[str, Any]],
    disagreements: list[dict[str, Any]],
) -> None:
    shapes = {m["source"]: _shape(m["value"]) for m in members}
    done: set[str] = set()
    for i, a in enumerate(members):  # oldest first
        if a["source"] in done:
            continue
        cluster = [a] + [
            b
            for b in members[i + 1 :]
            if b["source"] not in done and _near(shapes[a["source"]], shapes[b["source"]])
        ]
        if len(cluster) > 1:
            done.update(m["source"] for m in cluster)
            _settle(cluster, registry, out, targets, disagreements)


def _shape(value: Any) -> frozenset[str]:
    """What near-duplicates share: Latin words and CJK characters, without numbers (a
    number that differs makes a conflict, not a different topic)."""
    text = fold_text(str(value), Level.SPACE)
    words = {t for t in re.findall(r"[a-z]+", text) if t not in STOP_WORDS}
    chars = {ch for run in _CJK.findall(text) for ch in run if ch not in _CJK_STOP}
    return frozenset(words | chars)


def _near(a: frozenset[str], b: frozenset[str]) -> bool:
    """One note's words inside the other's, or nearly the same words (Jaccard)."""
    if not a or not b:
        return False
    return a <= b or b <= a or len(a & b) / len(a | b) >= NEAR


def _settle(
    cluster: list[dict[str, Any]],
    registry: Registry,
    out: dict[str, dict[str, Any]],
    targets: list[dict[str, Any]],
    disagreements: list[dict[str, Any]],
) -> None:
    """One cluster of near-duplicates: review when they disagree, else duplicates of the
    earliest, else a merge into a claim every member's evidence says, else review."""
    reason = _disagreement([m["value"] for m in cluster])
    if reason is not None:
        disagreements.append(
            {
                "reason": reason,
                "note": "kept as is for a person: a newer record does not win by being newer",
                "entries": [
                    {"source": m["source"], "said_at": _said_at(m), "value": m["value"]}
                    for m in cluster
                ],
            }
        )
        _dispose(cluster, out, {"disposition": "review", "reason": reason})
    elif not _fold_duplicates(cluster, registry, out) and not _merge(
        cluster, registry, out, targets
    ):
        _dispose(
            cluster, out, {"disposition": "review", "reason": "near_duplicate_no_common_claim"}
        )


def _disagreement(values: list[Any]) -> str | None:
    """Why near-duplicates need a person: one says it changed another (a superseded
    chain), or they disagree on a negation or a number (a conflict)."""
    folded = [fold_text(str(v), Level.SPACE) for v in values]
    if any(_CHANGE.search(v) for v in folded):
        return "superseded_chain"
    if len({_negated(v) for v in values}) > 1 or len({_numbers(v) for v in values}) > 1:
        return "conflict"
    return None


def _dispose(
    cluster: list[dict[str, Any]], out: dict[str, dict[str, Any]], disposition: dict[str, Any]
) -> None:
    for m in cluster:
        out[m["source"]] = dict(disposition)


def _fold_duplicates(
    cluster: list[dict[str, Any]], registry: Registry, out: dict[str, dict[str, Any]]
) -> bool:
    """Normalised duplicates whose evidence says the earliest's value: the earliest stays,
    the others' evidence joins it."""
    head, rest = cluster[0], cluster[1:]
    if len({content(m["value"]) for m in cluster}) != 1:
        return False
    if not all(grounded_in_all(head["value"], [m], registry) for m in rest):
        return False
    for dup in rest:
        out[dup["source"]] = {
            "disposition": "duplicate",
            "target": head["source"],
            "reason": "normalised_duplicate",
        }
    return True


def _merge(
    cluster: list[dict[str, Any]],
    registry: Registry,
    out: dict[str, dict[str, Any]],
    targets: list[dict[str, Any]],
) -> bool:
    """A merge into the richest member value every member's evidence still says."""
    head = cluster[0]
    values = [m["value"] for m in cluster]
    for value in sorted(values, key=lambda v: (-len(content(v)), str(v))):
        if grounded_in_all(value, cluster, registry):
            sources = sorted(m["source"] for m in cluster)
            target = "t-" + sha256_hex("|".join(sources))[:16]
            targets.append(
                {
                    "target": target,
                    "subject_id": head["subject_id"],
                    "scope": head["scope"],
                    "kind": head["kind"],
                    "normalized_key": head["normalized_key"],
                    "value": value,
                    "sources": sources,
                }
            )
            _dispose(
                cluster, out, {"disposition": "merge", "target": target, "reason": "near_duplicate"}
            )
            return True
    return False
