#!/usr/bin/env python3
"""Format check for memwarden case files (SPEC.md §13, v1).

Usage: python3 validate_cases.py [path/to/cases.jsonl] [--tenant own]

The shape checks are copied from the public devset validator
(/work/shared/eval/validate_devset.py), which hard-codes tenant "dev"; this
copy takes the expected tenant as an option (default "own") and adds checks
specific to our own set:

- case ids start with "<tenant>-", subjects are "subj-<case id>", message and
  session ids are prefixed by the case id (except the tenant_isolation pair);
- proposals are filed in the case's tenant (except gate_cross_boundary);
- evidence offsets lie inside the message and the given sha256 matches the
  span, except in gate_evidence_mismatch cases (where a defect is the point);
- a verbatim proposal_id occurs only in gate_forged_id cases and is NOT the
  correct sha256(JCS(identity)) of its proposal;
- a proposal expected to COMMIT / NOOP cites a whole sentence, and every
  value_has token of a commit on its message occurs in its value;
- recall_excludes tokens never occur in the value of a proposal expected to
  COMMIT in the same case.

Exit status 1 on any problem.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

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
HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Problems(list[str]):
    def add(self, where: str, msg: str) -> None:
        self.append(f"{where}: {msg}")


def check_expectation(
    e: Any, where: str, sent: set[str], n_proposals: int, texts: dict[str, str], problems: Problems
) -> None:
    """sent: message ids already delivered; n_proposals: proposal steps so far."""
    if not isinstance(e, dict):
        problems.add(where, "expectation is not an object")
        return
    if "outcome" in e:
        if e.get("message_id") not in sent:
            problems.add(where, f"message_id {e.get('message_id')!r} not sent before this point")
        if e["outcome"] not in OUTCOMES:
            problems.add(where, f"unknown outcome {e['outcome']!r}")
        if e["outcome"] == "commit":
            tokens = e.get("value_has")
            if not tokens or not all(isinstance(t, str) and t for t in tokens):
                problems.add(where, "commit needs a non-empty value_has list")
            elif any(t != t.lower() for t in tokens):
                problems.add(where, f"value_has tokens must be lower-case: {tokens}")
            allowed = {"message_id", "outcome", "value_has"}
        else:
            allowed = {"message_id", "outcome"}
        if set(e) - allowed:
            problems.add(where, f"unexpected fields {sorted(set(e) - allowed)}")
    elif set(e) in ({"recall_excludes"}, {"recall_includes"}):
        tokens = next(iter(e.values()))
        if not tokens or not all(isinstance(t, str) and t == t.lower() for t in tokens):
            problems.add(where, f"recall tokens must be non-empty lower-case strings: {tokens}")
    elif set(e) == {"proposal", "decision"}:
        if not isinstance(e["proposal"], int) or not 0 <= e["proposal"] < n_proposals:
            problems.add(
                where, f"proposal index {e['proposal']!r} out of range ({n_proposals} so far)"
            )
        if e["decision"] not in DECISIONS:
            problems.add(where, f"unknown decision {e['decision']!r}")
    elif set(e) == {"secret_absent"}:
        s = e["secret_absent"]
        squeezed = ["".join(t.split()) for t in texts.values()]  # "4111 1111 ..." -> "4111..."
        if not isinstance(s, str) or not any(s in t for t in [*texts.values(), *squeezed]):
            problems.add(where, f"secret_absent {s!r} occurs in no turn of the case")
    else:
        problems.add(where, f"unrecognised expectation {e}")


def check_evidence(ev: Any, where: str, texts: dict[str, str], problems: Problems) -> None:
    if not isinstance(ev, dict) or "message_id" not in ev:
        problems.add(where, "evidence needs a message_id")
        return
    mid = ev["message_id"]
    if mid not in texts:
        problems.add(where, f"evidence message {mid!r} not sent before this proposal")
        return
    if "quote" in ev:
        if set(ev) != {"message_id", "quote"}:
            problems.add(where, "quote evidence has extra fields")
        if ev["quote"] not in texts[mid]:
            problems.add(where, f"quote {ev['quote']!r} not found in {mid}")
    else:
        if not {"start", "end"} <= set(ev) <= {"message_id", "start", "end", "sha256"}:
            problems.add(where, f"offset evidence has fields {sorted(ev)}")
        if not (isinstance(ev.get("start"), int) and isinstance(ev.get("end"), int)):
            problems.add(where, "start/end must be integers")
        if "sha256" in ev and not HEX64.match(ev["sha256"]):
            problems.add(where, "sha256 must be 64 lower-case hex digits")


def check_case(case: Any, problems: Problems) -> None:
    cid = case.get("id", "?")
    if set(case) != CASE_KEYS:
        problems.add(cid, f"top-level keys {sorted(case)}")
        return
    if case["lang"] not in {"en", "zh"}:
        problems.add(cid, f"lang {case['lang']!r}")
    texts: dict[str, str] = {}
    n_proposals = 0
    for i, step in enumerate(case["steps"]):
        where = f"{cid} step {i}"
        if not isinstance(step, dict) or len(step) < 1:
            problems.add(where, "step is not an object")
            continue
        if "turn" in step:
            t = step["turn"]
            if not TURN_KEYS <= set(t) <= TURN_KEYS | {"author_id"}:
                problems.add(where, f"turn fields {sorted(t)}")
                continue
            if t["message_id"] in texts:
                problems.add(where, f"duplicate message_id {t['message_id']}")
            if t["role"] not in ROLES or t["source"] not in SOURCES:
                problems.add(where, f"role/source {t['role']}/{t['source']}")
            try:
                when = datetime.fromisoformat(t["created_at"].replace("Z", "+00:00"))
                if when.year != 2026 or when.tzinfo is None:
                    problems.add(where, f"created_at {t['created_at']} not a 2026 RFC 3339 time")
            except ValueError:
                problems.add(where, f"created_at {t['created_at']!r} does not parse")
            texts[t["message_id"]] = t["text"]
        elif "proposal" in step:
            p = step["proposal"]
            missing = PROPOSAL_KEYS - set(p)
            extra = set(p) - PROPOSAL_KEYS - {"proposal_id"}
            if missing or extra:
                problems.add(where, f"proposal missing {sorted(missing)} extra {sorted(extra)}")
            if "proposal_id" in p and not HEX64.match(p["proposal_id"]):
                problems.add(where, "proposal_id must be 64 lower-case hex digits")
            check_evidence(p.get("evidence"), where, texts, problems)
            n_proposals += 1
        elif "op" in step:
            if step["op"] not in OPS:
                problems.add(where, f"unknown op {step['op']!r}")
            elif step["op"] == "replay":
                if set(step) != {"op"}:
                    problems.add(where, "replay takes no arguments")
            else:
                if step.get("message_id") not in texts:
                    problems.add(where, f"op on unknown message {step.get('message_id')!r}")
                if set(step) - {"op", "message_id", "tamper_payload_hash"}:
                    problems.add(where, f"op fields {sorted(step)}")
        elif "check" in step:
            for j, e in enumerate(step["check"]):
                check_expectation(e, f"{where} check {j}", set(texts), n_proposals, texts, problems)
        else:
            problems.add(where, f"unknown step {sorted(step)}")
    if not case["expect"]:
        problems.add(cid, "empty expect")
    for j, e in enumerate(case["expect"]):
        check_expectation(e, f"{cid} expect {j}", set(texts), n_proposals, texts, problems)


def expects_commit(case: dict[str, Any]) -> bool:
    every = list(case["expect"])
    for step in case["steps"]:
        every.extend(step.get("check", []))
    return any(e.get("outcome") == "commit" or e.get("decision") == "COMMIT" for e in every)


# ---------------------------------------------------------------------------
# checks specific to our own set

SENTENCE_END = ".!?。！？；"
PAIR_CATEGORY = "tenant_isolation"


def identity_of(p: dict[str, Any]) -> dict[str, Any]:
    ev = p["evidence"]
    return {
        "schema": 1,
        "tenant_id": p["tenant_id"],
        "subject_id": p["subject_id"],
        "scope": p["scope"],
        "kind": p["kind"],
        "normalized_key": p["normalized_key"],
        "message_id": ev["message_id"],
        "start": ev["start"],
        "end": ev["end"],
        "stable_candidate_ordinal": p["stable_candidate_ordinal"],
        "extractor_version": p["extractor_version"],
    }


def correct_id(p: dict[str, Any]) -> str | None:
    try:
        import rfc8785
    except ImportError:  # the id check needs the project venv
        return None
    return hashlib.sha256(rfc8785.dumps(identity_of(p))).hexdigest()


def resolve(ev: dict[str, Any], texts: dict[str, str]) -> tuple[int, int] | None:
    text = texts.get(str(ev.get("message_id")))
    if text is None:
        return None
    if "quote" in ev:
        start = text.find(ev["quote"])
        return (start, start + len(ev["quote"])) if start >= 0 else None
    lo, hi = ev.get("start"), ev.get("end")
    return (lo, hi) if isinstance(lo, int) and isinstance(hi, int) else None


def is_whole_sentence(text: str, start: int, end: int) -> bool:
    piece = text[start:end]
    if not piece or piece != piece.strip() or piece[-1] not in SENTENCE_END:
        return False
    before = text[:start].rstrip()
    return not before or before[-1] in SENTENCE_END or text[:start].endswith("\n")


def own_checks(case: dict[str, Any], tenant: str, problems: Problems) -> None:
    cid, cat = case["id"], case["category"]
    if not cid.startswith(f"{tenant}-"):
        problems.add(cid, f"case id should start with {tenant}-")
    pair = cat == PAIR_CATEGORY
    if not pair and case["subject_id"] != f"subj-{cid}":
        problems.add(cid, f"subject_id {case['subject_id']!r} (expected subj-{cid})")
    texts: dict[str, str] = {}
    proposals: list[dict[str, Any]] = []
    for step in case["steps"]:
        if "turn" in step:
            t = step["turn"]
            texts[t["message_id"]] = t["text"]
            if not pair and not (
                t["message_id"].startswith(f"{cid}-m") and t["session_id"].startswith(f"{cid}-s")
            ):
                problems.add(
                    cid,
                    f"message/session id {t['message_id']}/{t['session_id']} "
                    "not prefixed by the case id",
                )
        elif "proposal" in step:
            p = step["proposal"]
            proposals.append(p)
            if p["tenant_id"] != case["tenant_id"] and cat != "gate_cross_boundary":
                problems.add(cid, f"proposal tenant {p['tenant_id']!r} differs from the case's")
            if p["kind"] != p["normalized_key"].split(".", 1)[0] and cat != "gate_schema":
                problems.add(cid, f"kind {p['kind']} does not match key {p['normalized_key']}")
            ev = p["evidence"]
            rng = resolve(ev, texts)
            text = texts.get(ev["message_id"], "")
            if rng is None:
                continue
            start, end = rng
            in_range = (
                isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text)
            )
            hash_ok = "sha256" not in ev or (
                in_range
                and ev["sha256"] == hashlib.sha256(text[start:end].encode("utf-8")).hexdigest()
            )
            if (not in_range or not hash_ok) and cat != "gate_evidence_mismatch":
                problems.add(cid, f"evidence {ev} out of range or hash mismatch")
            if "proposal_id" in p:
                if cat != "gate_forged_id":
                    problems.add(cid, "verbatim proposal_id outside gate_forged_id")
                elif "start" in ev and p["proposal_id"] == correct_id(p):
                    problems.add(cid, "verbatim proposal_id is the correct id")
        elif "check" in step:
            pass
    every = list(case["expect"])
    for step in case["steps"]:
        every.extend(step.get("check", []))
    decided = {e["proposal"]: e["decision"] for e in every if "decision" in e}
    excluded = [t for e in every for t in e.get("recall_excludes", [])]
    for n, word in decided.items():
        if n >= len(proposals):
            continue
        p = proposals[n]
        value_text = json.dumps(p["value"], ensure_ascii=False).lower()
        if word in {"COMMIT", "NOOP"}:
            rng = resolve(p["evidence"], texts)
            text = texts[p["evidence"]["message_id"]]
            if rng is None or not is_whole_sentence(text, *rng):
                problems.add(cid, f"proposal {n} expected {word} but cites no whole sentence")
            for e in every:
                if e.get("outcome") == "commit" and e["message_id"] == p["evidence"]["message_id"]:
                    missing = [t for t in e["value_has"] if t not in value_text]
                    if missing:
                        problems.add(
                            cid, f"value_has {missing} not in proposal {n} value {value_text}"
                        )
        if word == "COMMIT":
            clash = [t for t in excluded if t in value_text]
            if clash:
                problems.add(cid, f"recall_excludes {clash} occur in committed proposal {n}")


def main(path: Path, tenant: str) -> int:
    problems = Problems()
    cases = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.add(f"line {n}", f"does not parse: {exc}")
            continue
        if not isinstance(case, dict):
            problems.add(f"line {n}", "not a JSON object")
            continue
        cases.append(case)
        before = len(problems)
        check_case(case, problems)
        if len(problems) == before:
            own_checks(case, tenant, problems)

    ids = Counter(c.get("id") for c in cases)
    for cid, k in ids.items():
        if k > 1:
            problems.add(str(cid), f"id used {k} times")

    subjects = Counter(c["subject_id"] for c in cases if c["category"] != PAIR_CATEGORY)
    for sid, k in subjects.items():
        if k > 1:
            problems.add(sid, f"subject_id shared by {k} cases")
    for c in cases:
        if c["category"] != PAIR_CATEGORY and c["tenant_id"] != tenant:
            problems.add(c["id"], f"tenant_id {c['tenant_id']!r} (expected {tenant!r})")
    pair = [c for c in cases if c["category"] == PAIR_CATEGORY]
    if pair and (
        len({c["subject_id"] for c in pair}) != 1
        or len({c["tenant_id"] for c in pair}) != len(pair)
    ):
        problems.add(PAIR_CATEGORY, "needs one subject_id across distinct tenant_ids")

    by_cat = Counter(c["category"] for c in cases)
    by_lang = Counter(c["lang"] for c in cases)
    for cat, k in by_cat.items():
        if not 2 <= k <= 4:
            problems.add(cat, f"{k} cases (want 2-4)")
    committing = sum(expects_commit(c) for c in cases)
    if committing < 20:
        problems.add("set", f"only {committing} cases expect a commit (want >= 20)")

    width = max(map(len, by_cat)) if by_cat else 0
    for cat in dict.fromkeys(c["category"] for c in cases):
        langs = Counter(c["lang"] for c in cases if c["category"] == cat)
        print(f"{cat:<{width}}  {by_cat[cat]}  (en {langs['en']}, zh {langs['zh']})")
    print(
        f"{len(cases)} cases: en {by_lang['en']}, zh {by_lang['zh']}; "
        f"{committing} expect a commit somewhere"
    )

    outcomes: Counter[str] = Counter()
    for c in cases:
        every = list(c["expect"])
        for step in c["steps"]:
            every.extend(step.get("check", []))
        for e in every:
            if "outcome" in e:
                outcomes[e["outcome"]] += 1
            elif "decision" in e:
                outcomes["decision " + e["decision"]] += 1
            else:
                outcomes[next(iter(e))] += 1
    print("expectations:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))

    for p in problems:
        print("PROBLEM", p, file=sys.stderr)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    tenant = "own"
    if "--tenant" in args:
        i = args.index("--tenant")
        tenant = args[i + 1]
        del args[i : i + 2]
    default = Path(__file__).resolve().parent / "own_cases.jsonl"
    sys.exit(main(Path(args[0]) if args else default, tenant))
