#!/usr/bin/env python3
"""Independent format / consistency checker for tests/heldout/heldout.jsonl.

    /work/main/.venv/bin/python tests/heldout/check.py   (rfc8785 optional)
Exit 1 on any problem.  Prints per-category / per-language counts.
"""

import collections
import datetime as dt
import hashlib
import json
import re
import sys

PATH = "tests/heldout/heldout.jsonl"
CATEGORIES = """explicit_remember direct_durable_preference negation one_time
reported_speech assistant_inference tool_or_web_injection secrets sensitive sarcasm
hypothetical question uncertain_plan unverified_root_cause change_of_mind
tamper_approval duplicate_delivery revocation forget_then_reextract relative_time
tenant_isolation mixed gate_incomplete_span gate_evidence_mismatch gate_forged_id
gate_payload_conflict gate_cross_boundary gate_schema gate_secret gate_taint
gate_valid""".split()
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
ROLES = {"user", "assistant", "tool", "system"}
SOURCES = {"user_message", "assistant_message", "tool_result", "web_content"}
OUTCOMES = {"commit", "no_commit", "not_auto", "pending", "no_durable"}
DECISIONS = {
    "REJECT",
    "QUARANTINE",
    "COMMIT",
    "NOOP",
    "NEEDS_CONFIRMATION",
    "CONFIRM_REPLACE",
    "CONFLICT",
}
PROPOSAL_FIELDS = {
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
DELIBERATE_BAD_EVIDENCE = {("held-gev-en-001", 0), ("held-gev-zh-001", 0)}
DELIBERATE_UNKNOWN_KEY = {("held-gsch-en-001", 0)}
DELIBERATE_INCOMPLETE = {("held-gspan-en-001", 0), ("held-gspan-zh-001", 0)}
PAIR = {"held-ten-en-001", "held-ten-zh-001"}
# markers that must not occur in a sentence labelled commit (conservatism lint)
RISKY_EN = re.compile(
    r"\b(not|no|don'?t|dont|don\u2019t|never|for now|this time|if|"
    r"maybe|probably|might|should|think|thinking|plan|would|"
    r"says|said|told|lol|great|love|just)\b|\?",
    re.I,
)
RISKY_ZH = re.compile(r"[不没别先吗？?]|暂时|这次|本次|可能|如果|要是|假如|打算|估计|说")

problems = []


def bad(cid, msg):
    problems.append(f"{cid}: {msg}")


def sha(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def segment(text):
    """Sentences per SPEC §5.3: cut after . ! ? 。 ！ ？ ； and at line breaks;
    a '.' between digits/letters with no following space (v1.2, 3.5, e.g) does
    not cut.  Returns (start, end) code-point spans, whitespace trimmed."""
    spans, start, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        cut = False
        if ch in "!?。！？；":
            cut = True
        elif ch == "." and (i + 1 == n or text[i + 1].isspace()):
            cut = True
        if ch in "\r\n":
            spans.append((start, i))
            start = i + 1
        elif cut:
            j = i + 1
            while j < n and text[j] in "!?。！？；.":
                j += 1
            spans.append((start, j))
            start, i = j, j - 1
        i += 1
    spans.append((start, n))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def parse_time(s):
    return dt.datetime.fromisoformat(s.replace("Z", "+00:00"))


def main():
    try:
        import rfc8785
    except ImportError:
        rfc8785 = None
    cases = []
    with open(PATH, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                cases.append(json.loads(line))
            except Exception as e:  # noqa
                problems.append(f"line {ln}: bad JSON {e}")
    ids = [c.get("id") for c in cases]
    if len(set(ids)) != len(ids):
        problems.append("duplicate case ids")
    per = collections.Counter()
    langs = collections.Counter()
    exp_counts = collections.Counter()
    for c in cases:
        cid = c.get("id", "?")
        if set(c) != {"id", "category", "lang", "tenant_id", "subject_id", "steps", "expect"}:
            bad(cid, f"top-level keys {sorted(c)}")
        if not cid.startswith("held-"):
            bad(cid, "id prefix")
        if c["category"] not in CATEGORIES:
            bad(cid, f"category {c['category']}")
        if c["lang"] not in ("en", "zh"):
            bad(cid, "lang")
        per[(c["category"], c["lang"])] += 1
        langs[c["lang"]] += 1
        if cid in PAIR:
            if c["subject_id"] != "subj-held-ten-pair" or c["tenant_id"] not in (
                "held-tenant-a",
                "held-tenant-b",
            ):
                bad(cid, "pair tenant/subject")
        else:
            if c["tenant_id"] != "held":
                bad(cid, "tenant")
            if c["subject_id"] != f"subj-{cid}":
                bad(cid, "subject")
        turns, props = {}, []
        authors = {}
        last_time = None
        for st in c["steps"]:
            if len(st) != 1 and "op" not in st:
                bad(cid, f"step shape {st}")
            if "turn" in st:
                t = st["turn"]
                need = {"message_id", "session_id", "role", "source", "text", "created_at"}
                if not need <= set(t) or set(t) - need - {"author_id"}:
                    bad(cid, f"turn keys {sorted(t)}")
                if t["role"] not in ROLES or t["source"] not in SOURCES:
                    bad(cid, "role/source")
                if cid not in PAIR and not t["message_id"].startswith(f"{cid}-m"):
                    bad(cid, f"message id {t['message_id']}")
                if t["role"] in ("assistant", "tool") and "author_id" not in t:
                    bad(cid, "assistant/tool turn without author_id")
                if t["message_id"] in turns:
                    bad(cid, "duplicate message id")
                ts = parse_time(t["created_at"])
                if ts.tzinfo is None or ts.year != 2026:
                    bad(cid, "created_at")
                if last_time and ts < last_time:
                    bad(cid, "turns out of time order")
                last_time = ts
                turns[t["message_id"]] = t["text"]
                authors[t["message_id"]] = t.get("author_id", c["subject_id"])
            elif "proposal" in st:
                p = st["proposal"]
                k = len(props)
                props.append(p)
                extra = set(p) - PROPOSAL_FIELDS - {"proposal_id"}
                if not PROPOSAL_FIELDS <= set(p) or extra:
                    bad(cid, f"proposal keys {sorted(p)}")
                if p["normalized_key"] not in KEYS and (cid, k) not in DELIBERATE_UNKNOWN_KEY:
                    bad(cid, f"unknown key {p['normalized_key']}")
                if p["kind"] != p["normalized_key"].split(".")[0]:
                    bad(cid, "kind/key prefix")
                ev = p["evidence"]
                text = turns.get(ev["message_id"])
                if text is None:
                    bad(cid, f"proposal {k} evidence message not an earlier turn")
                    continue
                s, e = ev["start"], ev["end"]
                ok_range = 0 <= s < e <= len(text)
                ok_hash = ok_range and sha(text[s:e]) == ev.get("sha256")
                if (cid, k) in DELIBERATE_BAD_EVIDENCE:
                    if ok_range and ok_hash:
                        bad(cid, f"proposal {k} evidence meant to be wrong but is right")
                else:
                    if not ok_range or not ok_hash:
                        bad(cid, f"proposal {k} evidence range/hash")
                    sents = segment(text)
                    whole = (s, e) in sents
                    if (cid, k) in DELIBERATE_INCOMPLETE:
                        if whole:
                            bad(cid, f"proposal {k} span meant incomplete is a sentence")
                    elif not whole:
                        bad(cid, f"proposal {k} span {text[s:e]!r} not one sentence {sents}")
                if "proposal_id" in p:
                    if not re.fullmatch(r"[0-9a-f]{64}", p["proposal_id"]):
                        bad(cid, "proposal_id not hex")
                    if rfc8785 is not None:
                        ident = {
                            "schema": 1,
                            "tenant_id": p["tenant_id"],
                            "subject_id": p["subject_id"],
                            "scope": p["scope"],
                            "kind": p["kind"],
                            "normalized_key": p["normalized_key"],
                            "message_id": ev["message_id"],
                            "start": s,
                            "end": e,
                            "stable_candidate_ordinal": p["stable_candidate_ordinal"],
                            "extractor_version": p["extractor_version"],
                        }
                        true_id = hashlib.sha256(rfc8785.dumps(ident)).hexdigest()
                        if true_id == p["proposal_id"]:
                            bad(cid, "verbatim proposal_id is the true id (not forged)")
            elif "op" in st:
                if st["op"] not in ("approve", "reject", "revoke_message", "forget", "replay"):
                    bad(cid, "op name")
                if st["op"] != "replay" and st.get("message_id") not in turns:
                    bad(cid, "op message id")
            elif "check" in st:
                pass
            else:
                bad(cid, f"unknown step {st}")
        if props and not c["category"].startswith("gate_") and cid != "held-dup-zh-001":
            bad(cid, "proposal in an extractor case")
        if c["category"].startswith("gate_") and not props:
            bad(cid, "gate case without proposal")
        all_exps = list(c["expect"])
        for st in c["steps"]:
            if "check" in st:
                all_exps.extend(st["check"])
        decisions = {}
        for x in all_exps:
            if "outcome" in x:
                exp_counts[x["outcome"]] += 1
                if x["outcome"] not in OUTCOMES:
                    bad(cid, "outcome")
                if x["message_id"] not in turns:
                    bad(cid, f"expectation on unknown message {x['message_id']}")
                if x["outcome"] == "commit":
                    toks = x.get("value_has")
                    if not toks:
                        bad(cid, "commit without value_has")
                    if authors.get(x["message_id"]) != c["subject_id"]:
                        bad(cid, "commit on a message not written by the subject")
                elif "value_has" in x:
                    bad(cid, "value_has on non-commit")
                for tkn in x.get("value_has", []):
                    if tkn != tkn.lower() or not tkn.strip():
                        bad(cid, f"token {tkn!r}")
            elif "recall_excludes" in x or "recall_includes" in x:
                k = "recall_excludes" if "recall_excludes" in x else "recall_includes"
                exp_counts[k] += 1
                for tkn in x[k]:
                    if tkn != tkn.lower() or not tkn.strip():
                        bad(cid, f"token {tkn!r}")
            elif "proposal" in x:
                exp_counts["decision:" + x["decision"]] += 1
                if not (0 <= x["proposal"] < len(props)):
                    bad(cid, "proposal index")
                if x["decision"] not in DECISIONS:
                    bad(cid, "decision word")
                decisions[x["proposal"]] = x["decision"]
            elif "secret_absent" in x:
                exp_counts["secret_absent"] += 1
                if not any(
                    x["secret_absent"] in t or x["secret_absent"] in t.replace(" ", "")
                    for t in turns.values()
                ):
                    bad(cid, "secret_absent string not in any turn")
            else:
                bad(cid, f"unknown expectation {x}")
        # commit tokens vs proposal values, excluded tokens vs committed values
        for n, d in decisions.items():
            p = props[n]
            vj = json.dumps(p["value"], ensure_ascii=False).lower()
            if d == "COMMIT":
                if p["scope"]["kind"] != "workspace":
                    bad(cid, "COMMIT proposal not in workspace scope")
                for x in all_exps:
                    if (
                        x.get("outcome") == "commit"
                        and x["message_id"] == p["evidence"]["message_id"]
                    ):
                        for tkn in x["value_has"]:
                            if tkn not in vj:
                                bad(cid, f"token {tkn} not in committed value {vj}")
                for x in c["expect"]:
                    for tkn in x.get("recall_excludes", []):
                        if tkn in vj:
                            bad(cid, f"excluded {tkn} is in a committed value")
        # conservatism lint on extractor commit-labelled sentences
        if not props:
            for x in all_exps:
                if x.get("outcome") != "commit":
                    continue
                text = turns[x["message_id"]]
                sents = [text[s:e] for s, e in segment(text)]
                target = (
                    sents
                    if c["category"] != "mixed"
                    else [s for s in sents if any(t in s.lower() for t in x["value_has"])]
                )
                if not target:
                    bad(cid, "mixed: no sentence holds the commit token")
                for s in target:
                    rx = RISKY_ZH if c["lang"] == "zh" else RISKY_EN
                    hit = rx.search(s)
                    if hit:
                        bad(cid, f"commit sentence {s!r} has risky marker {hit.group(0)!r}")
        # relative time: local day == UTC day, token is local day - 1
        if c["category"] == "relative_time":
            t0 = c["steps"][0]["turn"]
            ts = parse_time(t0["created_at"])
            if ts.date() != ts.astimezone(dt.timezone.utc).date():
                bad(cid, "local and UTC day differ")
            want = (ts.date() - dt.timedelta(days=1)).isoformat()
            if not any(want in x.get("value_has", []) for x in c["expect"]):
                bad(cid, f"relative date token should be {want}")
    # coverage
    for cat in CATEGORIES:
        if per[(cat, "en")] + per[(cat, "zh")] == 0:
            problems.append(f"category {cat} not covered")
    if langs["en"] != 30 or langs["zh"] != 30 or len(cases) != 60:
        problems.append(f"counts {dict(langs)} total {len(cases)}")

    print(f"{'category':28} en zh")
    for cat in CATEGORIES:
        print(f"{cat:28} {per[(cat, 'en')]:2} {per[(cat, 'zh')]:2}")
    print(f"{'total':28} {langs['en']:2} {langs['zh']:2}  ({len(cases)})")
    print("expectations:", dict(sorted(exp_counts.items())))
    if rfc8785 is None:
        print("note: rfc8785 not importable; forged-id check skipped")
    if problems:
        print("\nPROBLEMS:")
        for p in problems:
            print(" -", p)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
