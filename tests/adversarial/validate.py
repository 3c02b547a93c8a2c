#!/usr/bin/env python3
"""Check adversarial.jsonl against the SPEC §13 (v1/v1.1) case format and this
corpus's own conventions (see README.md). Exit 1 on any problem.

Usage: python3 validate.py [path/to/adversarial.jsonl]
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import unicodedata
from collections import Counter
from datetime import datetime
from pathlib import Path

CASE_KEYS = {"id", "category", "lang", "tenant_id", "subject_id", "steps", "expect"}
TURN_KEYS = {"message_id", "session_id", "role", "source", "text", "created_at"}
ROLES = {"user", "assistant", "tool", "system"}
SOURCES = {"user_message", "assistant_message", "tool_result", "web_content"}
PROPOSAL_KEYS = {
    "tenant_id",
    "subject_id",
    "scope",
    "kind",
    "normalized_key",
    "stable_candidate_ordinal",
    "value",
    "evidence",
    "extractor_version",
    "confidence",
    "expires_at",
}
OPS = {"approve", "reject", "revoke_message", "forget", "replay"}
OUTCOMES = {"commit", "no_commit", "not_auto", "pending", "no_durable"}
DECISIONS = {
    "COMMIT",
    "NOOP",
    "CONFIRM_REPLACE",
    "NEEDS_CONFIRMATION",
    "QUARANTINE",
    "CONFLICT",
    "REJECT",
}
KEYS = {
    "preference.package_manager",
    "preference.language",
    "preference.ui_theme",
    "preference.editor",
    "preference.communication_style",
    "preference.note",
    "profile.name",
    "profile.timezone",
    "profile.location",
    "profile.contact",
    "profile.health",
    "decision.note",
    "task_fact.note",
}
HEX64 = re.compile(r"^[0-9a-f]{64}$")
ID_RE = re.compile(r"^adv-([a-z_]+)-(en|zh)-(\d{3})$")
REQUIRED = {
    "vendor_token",
    "spoken_secret",
    "homoglyph_invisible",
    "number_separators",
    "negation_dislike",
    "frame_cut",
    "pasted_speech",
    "sensitive_missed",
    "ordered_grounding",
    "hostile_fields",
    "scope_mismatch",
    "exclusions",
    "forget_holds",
    "lookalike_control",
}
SECRET_CLASSES = {"vendor_token", "spoken_secret", "number_separators"}
GATE_CLASSES = {"ordered_grounding", "hostile_fields", "scope_mismatch"}
INVIS = "\u200b\u200c\u200d\u2060\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
SEPS = set(" \t\n.-_/·–—,，．－\u00a0\u3000" + INVIS)
CN = "零一二三四五六七八九"
CNF = "零壹贰叁肆伍陆柒捌玖"
EN_DIGITS = "zero one two three four five six seven eight nine".split()


def fold(s: str) -> str:
    """Loose spelling fold used only to check a secret_absent string comes from the case."""
    s = unicodedata.normalize("NFKC", s).replace("〇", "零")
    for i, w in enumerate(EN_DIGITS):
        s = re.sub(rf"\b{w}\b", str(i), s, flags=re.I)
    out = []
    for ch in s:
        if ch in SEPS:
            continue
        if ch in CN:
            ch = str(CN.index(ch))
        elif ch in CNF:
            ch = str(CNF.index(ch))
        out.append(ch)
    return "".join(out)


class Problems(list):
    def add(self, where, msg):
        self.append(f"{where}: {msg}")


def check_expectation(e, where, sent, n_props, haystack, problems):
    if not isinstance(e, dict):
        problems.add(where, "expectation is not an object")
        return
    if "outcome" in e:
        if e.get("message_id") not in sent:
            problems.add(where, f"message_id {e.get('message_id')!r} not sent before this point")
        if e["outcome"] not in OUTCOMES:
            problems.add(where, f"unknown outcome {e['outcome']!r}")
        allowed = {"message_id", "outcome"}
        if e["outcome"] == "commit":
            allowed.add("value_has")
            toks = e.get("value_has")
            if not toks or not all(isinstance(t, str) and t and t == t.lower() for t in toks):
                problems.add(where, f"value_has must be non-empty lower-case strings: {toks}")
        if set(e) - allowed:
            problems.add(where, f"unexpected fields {sorted(set(e) - allowed)}")
    elif set(e) in ({"recall_excludes"}, {"recall_includes"}):
        toks = next(iter(e.values()))
        if not toks or not all(isinstance(t, str) and t and t == t.lower() for t in toks):
            problems.add(where, f"recall tokens must be non-empty lower-case strings: {toks}")
    elif set(e) == {"proposal", "decision"}:
        if not isinstance(e["proposal"], int) or not 0 <= e["proposal"] < n_props:
            problems.add(where, f"proposal index {e['proposal']!r} out of range ({n_props})")
        if e["decision"] not in DECISIONS:
            problems.add(where, f"unknown decision {e['decision']!r}")
    elif set(e) == {"secret_absent"}:
        s = e["secret_absent"]
        found = lambda x: any(x in h or fold(x) in fold(h) for h in haystack)  # noqa: E731
        if not isinstance(s, str) or len(fold(s)) < (6 if s.isascii() else 4):
            problems.add(where, f"secret_absent {s!r} too short to be meaningful")
        elif not found(s) and not any(found(s[:i]) and found(s[i:]) for i in range(4, len(s) - 3)):
            # a secret split over two messages may be listed joined
            problems.add(where, f"secret_absent {s!r} occurs in no turn or proposal of the case")
    else:
        problems.add(where, f"unrecognised expectation {e}")


def check_case(case, problems):
    cid = case.get("id", "?")
    if set(case) != CASE_KEYS:
        problems.add(cid, f"top-level keys {sorted(case)}")
        return
    m = ID_RE.match(cid)
    if not m:
        problems.add(cid, "id does not match adv-<class>-<en|zh>-NNN")
    elif m.group(1) != case["category"] or m.group(2) != case["lang"]:
        problems.add(cid, "id does not agree with category/lang")
    if case["lang"] not in {"en", "zh"}:
        problems.add(cid, f"lang {case['lang']!r}")
    if case["tenant_id"] != "adv":
        problems.add(cid, "tenant_id must be 'adv'")
    if case["subject_id"] != f"subj-{cid}":
        problems.add(cid, "subject_id must be subj-<case id>")
    texts: dict[str, str] = {}
    haystack: list[str] = []
    n_props = 0
    for i, step in enumerate(case["steps"]):
        where = f"{cid} step {i}"
        if "turn" in step:
            t = step["turn"]
            if not TURN_KEYS <= set(t) <= TURN_KEYS | {"author_id"}:
                problems.add(where, f"turn fields {sorted(t)}")
                continue
            if t["message_id"] in texts:
                problems.add(where, f"duplicate message_id {t['message_id']!r}")
            if t["role"] not in ROLES or t["source"] not in SOURCES:
                problems.add(where, "role/source")
            ca = t["created_at"]
            try:
                when = datetime.fromisoformat(ca.replace("Z", "+00:00"))
                if (
                    when.year != 2026
                    or when.tzinfo is None
                    or not re.search(r"([+-]\d\d:\d\d|Z)$", ca)
                ):
                    problems.add(where, f"created_at {ca} not a 2026 time with an offset")
            except ValueError:
                problems.add(where, f"created_at {ca!r} does not parse")
            texts[t["message_id"]] = t["text"]
            haystack.append(t["text"])
        elif "proposal" in step:
            p = step["proposal"]
            missing, extra = PROPOSAL_KEYS - set(p), set(p) - PROPOSAL_KEYS - {"proposal_id"}
            if missing or extra:
                problems.add(where, f"proposal missing {sorted(missing)} extra {sorted(extra)}")
                continue
            if p["normalized_key"] not in KEYS:
                problems.add(where, f"key {p['normalized_key']} not in the §6 minimum set")
            if p["kind"] != p["normalized_key"].split(".")[0]:
                problems.add(where, "kind does not match key")
            if (
                p["stable_candidate_ordinal"] != 0
                or p["confidence"] != 0.9
                or p["expires_at"] is not None
            ):
                problems.add(where, "ordinal 0 / confidence 0.9 / expires_at null convention")
            if p["tenant_id"] != "adv" or p["subject_id"] != case["subject_id"]:
                problems.add(where, "proposal tenant/subject must be the case's")
            ev = p["evidence"]
            if set(ev) != {"message_id", "quote"}:
                problems.add(where, "evidence must be {message_id, quote}")
            elif ev["message_id"] not in texts:
                problems.add(where, f"evidence message {ev['message_id']!r} not sent before")
            else:
                txt = texts[ev["message_id"]]
                q = ev["quote"]
                if q not in txt:
                    problems.add(where, f"quote {q!r} not in message")
                else:
                    start = txt.index(q)  # code points
                    end = start + len(q)
                    if (
                        hashlib.sha256(txt[start:end].encode()).hexdigest()
                        != hashlib.sha256(q.encode()).hexdigest()
                    ):
                        problems.add(where, "quote hash mismatch")
                    if q[-1] not in ".!?。！？；":
                        problems.add(where, "quote should include the closing punctuation")
            haystack.append(json.dumps(p, ensure_ascii=False))
            haystack.extend(str(v) for v in (p["scope"].get("key", ""), p["extractor_version"]))
            n_props += 1
        elif "op" in step:
            if step["op"] not in OPS:
                problems.add(where, f"unknown op {step['op']!r}")
            elif step["op"] != "replay" and step.get("message_id") not in texts:
                problems.add(where, f"op on unknown message {step.get('message_id')!r}")
        elif "check" in step:
            for j, e in enumerate(step["check"]):
                check_expectation(e, f"{where} check {j}", set(texts), n_props, haystack, problems)
        else:
            problems.add(where, f"unknown step {sorted(step)}")
    if not case["expect"]:
        problems.add(cid, "empty expect")
    for j, e in enumerate(case["expect"]):
        check_expectation(e, f"{cid} expect {j}", set(texts), n_props, haystack, problems)

    every = list(case["expect"]) + [e for s in case["steps"] for e in s.get("check", [])]
    cat = case["category"]
    if cat in SECRET_CLASSES:
        if not any("secret_absent" in e for e in every):
            problems.add(cid, "secret class without secret_absent")
        if not any(e.get("outcome") == "no_commit" for e in every):
            problems.add(cid, "secret case must expect no_commit")
    if any("secret_absent" in e for e in every) and cat != "hostile_fields":
        if not any(e.get("outcome") == "no_commit" for e in every):
            problems.add(cid, "secret case must expect no_commit")
    if cat in GATE_CLASSES and cid.count("-") and not any("proposal" in s for s in case["steps"]):
        if not (cat == "hostile_fields"):  # odd-id hostile cases are turn-only
            problems.add(cid, "gate class without a proposal step")
    if cat == "lookalike_control" and not all(e.get("outcome") in (None, "commit") for e in every):
        problems.add(cid, "look-alike controls must not expect a refusal")
    if cat == "forget_holds":
        ops = [s.get("op") for s in case["steps"]]
        if "forget" not in ops:
            problems.add(cid, "forget case without forget op")


def main(path: Path) -> int:
    problems = Problems()
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            c = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.add(f"line {n}", f"does not parse: {exc}")
            continue
        cases.append(c)
        check_case(c, problems)
    for cid, k in Counter(c["id"] for c in cases).items():
        if k > 1:
            problems.add(cid, f"id used {k} times")
    for sid, k in Counter(c["subject_id"] for c in cases).items():
        if k > 1:
            problems.add(sid, f"subject shared by {k} cases")
    by_cat = Counter(c["category"] for c in cases)
    by_lang = Counter(c["lang"] for c in cases)
    for cat in REQUIRED - set(by_cat):
        problems.add(cat, "class missing")
    for cat, k in by_cat.items():
        if cat not in REQUIRED:
            problems.add(cat, "unknown class")
        want = 40 if cat == "lookalike_control" else 20
        if k < want:
            problems.add(cat, f"{k} cases (want >= {want})")
        langs = Counter(c["lang"] for c in cases if c["category"] == cat)
        if min(langs["en"], langs["zh"]) < k // 3:
            problems.add(cat, f"language split too uneven {dict(langs)}")
    if len(cases) < 320:
        problems.add("set", f"{len(cases)} cases (want >= 320)")
    if abs(by_lang["en"] - by_lang["zh"]) > len(cases) // 10:
        problems.add("set", f"language split {dict(by_lang)}")
    width = max(map(len, by_cat))
    for cat in dict.fromkeys(c["category"] for c in cases):
        langs = Counter(c["lang"] for c in cases if c["category"] == cat)
        print(f"{cat:<{width}}  {by_cat[cat]:>3}  (en {langs['en']}, zh {langs['zh']})")
    n_sa = sum(1 for c in cases for e in c["expect"] if "secret_absent" in e)
    print(
        f"{len(cases)} cases: en {by_lang['en']}, zh {by_lang['zh']}; {n_sa} secret_absent expectations"
    )
    for p in problems:
        print("PROBLEM", p, file=sys.stderr)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    default = Path(__file__).resolve().parent / "adversarial.jsonl"
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else default))
