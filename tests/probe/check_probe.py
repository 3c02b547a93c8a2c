#!/usr/bin/env python3
"""Format and consistency check for probe_cases.jsonl (SPEC.md §13 v1).

Usage: /work/main/.venv/bin/python tests/probe/check_probe.py [path]
Exit status 1 on any problem. Checks:
- every line is a JSON object with exactly the §13 case fields;
- ids unique, prefixed ``probe-``; tenant ``probe``; subject ``subj-<id>``;
  message ids ``<id>-m<n>`` and sessions ``<id>-s<n>``; languages balanced;
- turns: roles/sources from §13, created_at RFC 3339 in 2026, message ids
  unique within the case, non-user turns name an author;
- proposals: §4 fields, tenant/subject of the case, scope shape, kind matches
  the key prefix, key in the §6 minimum set, evidence either a quote present
  in the cited message or start/end inside the message (code points) with a
  sha256 equal to the span's; a verbatim proposal_id is 64 hex and NOT the
  correct id of its proposal;
- a proposal expected to COMMIT cites exactly one whole sentence (simple
  reference segmenter following §5.3), its value contains the value_has
  tokens of the commit on that message; a gate_incomplete_span proposal does
  NOT cite a whole sentence;
- expectations: known shapes, message ids that exist, outcome words from §13,
  lower-case tokens, proposal indices in range, secret_absent strings that
  actually occur in some turn text (otherwise the check would be vacuous);
- recall_excludes tokens never occur in a value that the case expects to be
  committed (internal consistency);
- commit value_has tokens occur in the message text (or via the §6 value
  normalisation for ui_theme / language);
- ops name existing messages.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from pathlib import Path

import rfc8785

PATH = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("probe_cases.jsonl")

ROLES = {"user", "assistant", "tool", "system"}
SOURCES = {"user_message", "assistant_message", "tool_result", "web_content"}
OUTCOMES = {"commit", "no_commit", "not_auto", "pending", "no_durable"}
DECISIONS = {
    "REJECT",
    "QUARANTINE",
    "NEEDS_CONFIRMATION",
    "NOOP",
    "CONFIRM_REPLACE",
    "CONFLICT",
    "COMMIT",
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
ALIASES = {"dark": ["dark", "深色"], "light": ["light", "浅色"], "english": ["english", "英文"]}
TS = re.compile(r"^2026-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$")

problems: list[str] = []


def bad(cid, msg):
    problems.append(f"{cid}: {msg}")


def sha(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


# --- reference segmenter (SPEC §5.3) ----------------------------------------
FINAL = set(".!?。！？；")
ABBREV = {"e.g", "i.e", "etc", "vs", "mr", "mrs", "dr", "approx"}


def sentences(text: str) -> list[tuple[int, int]]:
    """Spans (start, end) of trimmed sentences, code-point offsets."""
    out, start, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        cut_after = None
        if ch == "\n":
            cut_after = i  # the newline itself is not part of the sentence
        elif ch in FINAL:
            j = i
            while j + 1 < n and text[j + 1] in FINAL:
                j += 1
            if ch == ".":
                nxt = text[j + 1] if j + 1 < n else ""
                word = re.findall(r"[A-Za-z.]+$", text[start:i])
                if nxt and not nxt.isspace():
                    i = j + 1
                    continue  # v1.2, 3.8, example.com, e.g.x
                if word and word[-1].lower().strip(".") in ABBREV:
                    i = j + 1
                    continue
            cut_after = j + 1
            i = j
        if cut_after is not None:
            out.append((start, cut_after))
            start = cut_after + (1 if ch == "\n" else 0)
        i += 1
    out.append((start, n))
    trimmed = []
    for s, e in out:
        seg = text[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            trimmed.append((s + ls, s + rs))
    return trimmed


def is_whole_sentence(text: str, start: int, end: int) -> bool:
    return (start, end) in sentences(text)


def correct_id(p: dict, start: int, end: int) -> str:
    ident = {
        "schema": 1,
        "tenant_id": p["tenant_id"],
        "subject_id": p["subject_id"],
        "scope": p["scope"],
        "kind": p["kind"],
        "normalized_key": p["normalized_key"],
        "message_id": p["evidence"]["message_id"],
        "start": start,
        "end": end,
        "stable_candidate_ordinal": p["stable_candidate_ordinal"],
        "extractor_version": p["extractor_version"],
    }
    return hashlib.sha256(rfc8785.dumps(ident)).hexdigest()


def check_case(d: dict, langs: Counter, cats: Counter):
    cid = d.get("id", "?")
    if set(d) != {"id", "category", "lang", "tenant_id", "subject_id", "steps", "expect"}:
        bad(cid, f"case fields {sorted(d)}")
        return
    if not cid.startswith("probe-"):
        bad(cid, "id prefix")
    if d["tenant_id"] != "probe":
        bad(cid, "tenant")
    if d["subject_id"] != f"subj-{cid}":
        bad(cid, "subject")
    if d["lang"] not in ("en", "zh"):
        bad(cid, "lang")
    langs[d["lang"]] += 1
    cats[(d["category"], d["lang"])] += 1
    if not isinstance(d["steps"], list) or not d["steps"]:
        bad(cid, "no steps")
    if not isinstance(d["expect"], list) or not d["expect"]:
        bad(cid, "no expectations")

    texts: dict[str, str] = {}
    proposals: list[dict] = []
    resolved: list[tuple[int, int]] = []
    all_exps: list[dict] = list(d["expect"])

    for step in d["steps"]:
        if len(step) != 1 and "op" not in step:
            bad(cid, f"step with several kinds {sorted(step)}")
        if "turn" in step:
            t = step["turn"]
            need = {"message_id", "session_id", "role", "source", "text", "created_at"}
            if not need <= set(t) or not set(t) <= need | {"author_id"}:
                bad(cid, f"turn fields {sorted(t)}")
                continue
            if t["message_id"] in texts:
                bad(cid, f"duplicate message id {t['message_id']}")
            if not re.fullmatch(re.escape(cid) + r"-m\d+", t["message_id"]):
                bad(cid, f"message id {t['message_id']}")
            if not re.fullmatch(re.escape(cid) + r"-s\d+", t["session_id"]):
                bad(cid, f"session id {t['session_id']}")
            if t["role"] not in ROLES or t["source"] not in SOURCES:
                bad(cid, f"role/source {t['role']}/{t['source']}")
            if t["role"] != "user" and not t.get("author_id"):
                bad(cid, "non-user turn without author_id")
            if not TS.match(t["created_at"]):
                bad(cid, f"created_at {t['created_at']}")
            if not t["text"].strip():
                bad(cid, "empty text")
            texts[t["message_id"]] = t["text"]
        elif "proposal" in step:
            p = step["proposal"]
            extra = set(p) - PROPOSAL_FIELDS - {"proposal_id"}
            if not PROPOSAL_FIELDS <= set(p) or extra:
                bad(cid, f"proposal fields {sorted(p)}")
                continue
            if p["tenant_id"] != d["tenant_id"] or p["subject_id"] != d["subject_id"]:
                bad(cid, "proposal tenant/subject")
            sc = p["scope"]
            if set(sc) != {"kind", "key"} or sc["kind"] not in (
                "user",
                "session",
                "workspace",
                "project",
            ):
                bad(cid, f"scope {sc}")
            if sc["kind"] == "user" and sc["key"] != d["subject_id"]:
                bad(cid, "user scope key")
            if sc["kind"] == "workspace" and sc["key"] != f"ws-{cid}":
                bad(cid, "workspace scope key")
            if p["normalized_key"] not in KEYS:
                bad(cid, f"key {p['normalized_key']}")
            if p["kind"] != p["normalized_key"].split(".")[0]:
                bad(cid, "kind/key mismatch")
            if not isinstance(p["stable_candidate_ordinal"], int) or not isinstance(
                p["confidence"], float
            ):
                bad(cid, "ordinal/confidence types")
            if p["expires_at"] is not None and not TS.match(
                p["expires_at"].replace("2027", "2026", 1)
            ):
                bad(cid, "expires_at")
            ev = p["evidence"]
            mid = ev.get("message_id")
            if mid not in texts:
                bad(cid, f"evidence cites unknown/later message {mid}")
                continue
            text = texts[mid]
            if set(ev) == {"message_id", "quote"}:
                i = text.find(ev["quote"])
                if i < 0:
                    bad(cid, "quote not in message")
                    continue
                s, e = i, i + len(ev["quote"])
            elif (
                {"message_id", "start", "end"}
                <= set(ev)
                <= {"message_id", "start", "end", "sha256"}
            ):
                s, e = ev["start"], ev["end"]
                if not (isinstance(s, int) and isinstance(e, int) and 0 <= s < e <= len(text)):
                    bad(cid, f"offsets out of range {s}:{e} len {len(text)}")
                    continue
                if "sha256" in ev and ev["sha256"] != sha(text[s:e]):
                    bad(cid, "evidence sha256 does not match span")
            else:
                bad(cid, f"evidence fields {sorted(ev)}")
                continue
            if "proposal_id" in p:
                if not re.fullmatch(r"[0-9a-f]{64}", p["proposal_id"]):
                    bad(cid, "proposal_id not hex")
                if p["proposal_id"] == correct_id(p, s, e):
                    bad(cid, "verbatim proposal_id is the correct one")
                if d["category"] != "gate_forged_id":
                    bad(cid, "verbatim proposal_id outside gate_forged_id")
            proposals.append(p)
            resolved.append((s, e))
        elif "op" in step:
            op = step["op"]
            if op not in ("approve", "reject", "revoke_message", "forget", "replay"):
                bad(cid, f"op {op}")
            if op == "replay":
                if set(step) != {"op"}:
                    bad(cid, "replay with args")
            else:
                if step.get("message_id") not in texts:
                    bad(cid, f"op on unknown message {step.get('message_id')}")
                if not set(step) <= {"op", "message_id", "tamper_payload_hash"}:
                    bad(cid, f"op fields {sorted(step)}")
        elif "check" in step:
            if not isinstance(step["check"], list) or not step["check"]:
                bad(cid, "empty check")
            all_exps.extend(step["check"])
        else:
            bad(cid, f"unknown step {sorted(step)}")

    all_text = "\n".join(texts.values())
    commit_vals_expected: list[str] = []
    commit_tokens: dict[str, list[str]] = {}
    for x in all_exps:
        if "outcome" in x:
            if set(x) - {"message_id", "outcome", "value_has"}:
                bad(cid, f"outcome fields {sorted(x)}")
            if x["message_id"] not in texts:
                bad(cid, f"expectation on unknown message {x['message_id']}")
            if x["outcome"] not in OUTCOMES:
                bad(cid, f"outcome {x['outcome']}")
            if x["outcome"] == "commit":
                toks = x.get("value_has")
                if not toks:
                    bad(cid, "commit without value_has")
                    continue
                for tok in toks:
                    if tok != tok.lower() or not tok.strip():
                        bad(cid, f"token not lower-case {tok!r}")
                    txt = texts.get(x["message_id"], "").lower()
                    if not any(a in txt for a in ALIASES.get(tok, [tok])):
                        bad(cid, f"value_has token {tok!r} not grounded in message text")
                commit_tokens.setdefault(x["message_id"], []).extend(toks)
            elif "value_has" in x:
                bad(cid, "value_has on a non-commit outcome")
        elif "recall_excludes" in x or "recall_includes" in x:
            toks = x.get("recall_excludes", x.get("recall_includes"))
            if len(x) != 1 or not isinstance(toks, list) or not toks:
                bad(cid, "recall expectation shape")
            for tok in toks or []:
                if tok != tok.lower():
                    bad(cid, f"token not lower-case {tok!r}")
        elif "proposal" in x:
            if set(x) != {"proposal", "decision"} or x["decision"] not in DECISIONS:
                bad(cid, f"decision expectation {x}")
            elif not (0 <= x["proposal"] < len(proposals)):
                bad(cid, f"proposal index {x['proposal']} out of range")
        elif "secret_absent" in x:
            if len(x) != 1 or x["secret_absent"] not in all_text:
                bad(cid, "secret_absent string not in any turn (vacuous)")
        else:
            bad(cid, f"unknown expectation {x}")

    # proposals expected to COMMIT: whole sentence, tokens in value
    for x in all_exps:
        if x.get("decision") == "COMMIT" and 0 <= x.get("proposal", -1) < len(proposals):
            p = proposals[x["proposal"]]
            s, e = resolved[x["proposal"]]
            mid = p["evidence"]["message_id"]
            if not is_whole_sentence(texts[mid], s, e):
                bad(cid, f"COMMIT proposal {x['proposal']} does not cite a whole sentence")
            val = json.dumps(p["value"], ensure_ascii=False).lower()
            commit_vals_expected.append(val)
            for tok in commit_tokens.get(mid, []):
                if tok not in val:
                    bad(cid, f"value_has {tok!r} not in COMMIT proposal value")
            if p["scope"]["kind"] != "workspace":
                bad(cid, "COMMIT proposal not in workspace scope")
    if d["category"] == "gate_incomplete_span":
        for p, (s, e) in zip(proposals, resolved):
            if is_whole_sentence(texts[p["evidence"]["message_id"]], s, e):
                bad(cid, "incomplete-span proposal cites a whole sentence")
    # internal consistency: excluded tokens vs expected committed content
    excluded = [t for x in d["expect"] for t in x.get("recall_excludes", [])]
    final_commit_msgs = [x["message_id"] for x in d["expect"] if x.get("outcome") == "commit"]
    for t in excluded:
        for v in commit_vals_expected:
            if t in v:
                bad(cid, f"recall_excludes {t!r} occurs in an expected COMMIT value")
        for mid in final_commit_msgs:
            for tok in commit_tokens.get(mid, []):
                if t in tok:
                    bad(cid, f"recall_excludes {t!r} overlaps a final commit token {tok!r}")


def main() -> int:
    langs, cats = Counter(), Counter()
    ids = []
    raw = PATH.read_text(encoding="utf-8")
    if not raw.endswith("\n"):
        problems.append("file: no trailing newline")
    for n, line in enumerate(raw.splitlines(), 1):
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {n}: {exc}")
            continue
        ids.append(d.get("id"))
        check_case(d, langs, cats)
    dup = [i for i, k in Counter(ids).items() if k > 1]
    if dup:
        problems.append(f"duplicate ids {dup}")
    if abs(langs["en"] - langs["zh"]) > 2:
        problems.append(f"language imbalance {dict(langs)}")
    for p in problems:
        print("PROBLEM", p)
    print(f"{len(ids)} cases, {dict(langs)}, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
