#!/usr/bin/env python3
"""Check breadth.jsonl: SPEC §13 v1 shape (turn steps only), unique ids, id/category/lang
conventions, created_at in 2026 with an explicit offset, dated_event dates recomputed
from the stored spec in build_breadth.py, tokens lower-case, offsets/hashes (none here:
turn-only cases carry no evidence; any evidence present is checked). Exit 1 on problems."""

from __future__ import annotations
import hashlib, json, re, sys
from collections import Counter
from datetime import date, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import build_breadth as B  # noqa: E402

PATH = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "breadth.jsonl"
CATS = {
    "dated_event",
    "tool_preference",
    "pet_household",
    "diet_allergy",
    "team_decision",
    "x_not_y",
    "language_variant",
    "control_not_durable",
}
OUTCOMES = {"commit", "no_commit", "not_auto", "pending", "no_durable"}
TS = re.compile(r"^2026-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$")
ISO = re.compile(r"\b(2026|2027)-\d\d-\d\d\b")
problems = []


def bad(w, m):
    problems.append(f"{w}: {m}")


cases = [json.loads(l) for l in PATH.open(encoding="utf-8") if l.strip()]
ids = Counter(c["id"] for c in cases)
for i, n in ids.items():
    if n > 1:
        bad(i, "duplicate id")
subs = Counter(c["subject_id"] for c in cases)
for s, n in subs.items():
    if n > 1:
        bad(s, "subject shared")
dated_expect = {B.resolve(ts, spec) + "|" + text for _, text, ts, spec, _ in B.DATED}
for c in cases:
    w = c.get("id", "?")
    if set(c) != {"id", "category", "lang", "tenant_id", "subject_id", "steps", "expect"}:
        bad(w, f"keys {sorted(c)}")
    if c["category"] not in CATS:
        bad(w, "category")
    if c["lang"] not in ("en", "zh"):
        bad(w, "lang")
    if c["tenant_id"] != "b15":
        bad(w, "tenant")
    if not re.fullmatch(rf"b15-{c['category']}-{c['lang']}-\d{{3}}", w):
        bad(w, "id pattern")
    sent, texts = set(), {}
    for s in c["steps"]:
        if set(s) != {"turn"}:
            bad(w, "non-turn step")
            continue
        t = s["turn"]
        if not {"message_id", "session_id", "role", "source", "text", "created_at"} <= set(t):
            bad(w, "turn keys")
        if t["role"] != "user" or t["source"] != "user_message":
            bad(w, "role/source")
        if not TS.match(t["created_at"]):
            bad(w, f"created_at {t['created_at']}")
        datetime.fromisoformat(t["created_at"].replace("Z", "+00:00"))
        sent.add(t["message_id"])
        texts[t["message_id"]] = t["text"]
        ev = t.get("evidence")
        if ev:  # not used in this set; kept for completeness
            seg = t["text"][ev["start"] : ev["end"]]
            if hashlib.sha256(seg.encode()).hexdigest() != ev.get("sha256"):
                bad(w, "hash")
    n_out = 0
    for e in c["expect"]:
        if "outcome" in e:
            n_out += 1
            if e["message_id"] not in sent:
                bad(w, "expect names unsent message")
            if e["outcome"] not in OUTCOMES:
                bad(w, "outcome")
            if e["outcome"] == "commit":
                toks = e.get("value_has") or []
                if not toks or any(t != t.lower() or not t for t in toks):
                    bad(w, "value_has")
                text_l = texts[e["message_id"]].lower()
                for tok in toks:
                    if ISO.fullmatch(tok):
                        date.fromisoformat(tok)
                        if f"{tok}|{texts[e['message_id']]}" not in dated_expect:
                            bad(w, f"date {tok} not recomputed")
                    elif tok not in text_l and not (c["category"] == "language_variant"):
                        bad(w, f"token {tok!r} not in the user's text")
                if c["category"] == "dated_event" and not any(ISO.fullmatch(t) for t in toks):
                    bad(w, "dated_event without absolute date")
            else:
                if c["category"] not in ("control_not_durable", "diet_allergy"):
                    bad(w, "non-commit outside controls")
        elif "recall_excludes" in e:
            if any(t != t.lower() for t in e["recall_excludes"]):
                bad(w, "excl lower")
        else:
            bad(w, f"unknown expectation {e}")
    if n_out != 1:
        bad(w, "expected exactly one outcome")
    if c["category"] == "diet_allergy" and c["expect"][0]["outcome"] != "not_auto":
        bad(w, "diet must be not_auto")

# language_variant tokens: stems of words the user said (brit<-British, canad<-Canadian, mexic<-Mexican)
cnt = Counter((c["category"], c["lang"]) for c in cases)
for k in sorted(cnt):
    print(f"{k[0]:22s} {k[1]} {cnt[k]}")
print("total", len(cases), dict(Counter(c["lang"] for c in cases)))
non_commit = sum(1 for c in cases if c["expect"][0]["outcome"] != "commit")
print(
    "non-commit labelled:",
    non_commit,
    f"({non_commit / len(cases):.0%}); controls:",
    sum(1 for c in cases if c["category"] == "control_not_durable"),
)
if problems:
    print("\n".join(problems))
    sys.exit(1)
print("OK")
