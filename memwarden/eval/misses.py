"""``memwarden eval --misses``: the commit expectations that failed, grouped by the verb
class (``text.verb_class``) and language of the message, so a gap in extraction shows up
as a class ("English team decisions without decide") and not as one case to patch. Pure.

Two groups: **unproposed** (nothing at all was proposed from the message: the extractor
missed it) and **proposed, not committed** (the gate parked or refused what was proposed,
or the value missed the expected words). Only counts and message ids are reported, never
the text, so a report on a blind set does not leak its cases.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from memwarden.eval.judge import CaseResult
from memwarden_shared.text.verb_class import VERB_CLASSES, statement_language, verb_class

GROUPS = ("unproposed", "proposed_not_committed")


def misses(results: list[CaseResult]) -> dict[str, Any]:
    """``{group: {verb class: {language: {"count": n, "messages": [ids]}}}}`` and totals."""
    found: dict[str, dict[str, dict[str, list[str]]]] = {
        g: defaultdict(lambda: defaultdict(list)) for g in GROUPS
    }
    for result in results:
        for verdict in result.verdicts:
            exp = verdict.expectation
            if exp.get("outcome") != "commit" or verdict.passed:
                continue
            message = str(exp.get("message_id"))
            text = result.texts.get(message, "")
            group = "proposed_not_committed" if result.proposed.get(message) else "unproposed"
            lang = result.lang if result.lang not in ("", "?") else statement_language(text)
            found[group][verb_class(text)][lang].append(message)
    out: dict[str, Any] = {}
    for group in GROUPS:
        by_class = found[group]
        out[group] = {
            name: {
                lang: {"count": len(ids), "messages": sorted(ids)}
                for lang, ids in sorted(by_class[name].items())
            }
            for name in VERB_CLASSES
            if name in by_class
        }
        out[f"{group}_total"] = sum(len(ids) for c in by_class.values() for ids in c.values())
    return out
