#!/usr/bin/env python3
"""Format check and counts for h16.jsonl (SPEC §13 v1). Exit 1 on any problem.

Usage: python3 validate.py [h16.jsonl]
Dates of dated_event cases are recomputed here independently of build_h16.py (from the
relative spec stored in h16_meta.json and the turn's own offset) and compared.
"""

import collections
import datetime as dt
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PATH = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "h16.jsonl")
META = os.path.join(HERE, "h16_meta.json")
CATS = {
    "dated_event",
    "tool_preference",
    "pet_household",
    "team_decision",
    "x_not_y",
    "language_variant",
    "diet_allergy",
    "control_not_durable",
}
EXPECTED_LABEL = {
    "dated_event": "commit",
    "tool_preference": "commit",
    "pet_household": "commit",
    "team_decision": "commit",
    "x_not_y": "commit",
    "language_variant": "commit",
    "diet_allergy": "not_auto",
}
ID_RE = re.compile(r"^h16-([a-z_]+)-(en|zh)-(\d{3})$")
TS_RE = re.compile(r"^2026-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$")
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN_WORD = re.compile(r"[A-Za-z]{3,}")
NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
# tokens that are a normalised form rather than a substring of the text
NORMALISED_TOKENS = {("我喜欢浅色主题，不要深色的。", "light")}

errors = []


def err(msg):
    errors.append(msg)


def recompute(created, rel):
    """Independent implementation: walk day by day."""
    t = dt.datetime.fromisoformat(created.replace("Z", "+00:00"))
    d = t.date()  # local calendar day in the turn's own offset
    kind = rel[0]
    if kind == "days":
        return d + dt.timedelta(days=rel[1])
    if kind == "this_month_day":
        return d.replace(day=rel[1])
    if kind == "next_month_day":
        x = d.replace(day=28) + dt.timedelta(days=5)  # lands in next month
        return x.replace(day=rel[1])
    target = NAMES.index(rel[1])
    if kind in ("this", "zhezhou"):
        x = d
        while x.weekday() != target:
            x += dt.timedelta(days=1)
            if x.weekday() == 0:
                raise AssertionError("crossed into next week")
        return x
    # next week (Monday start); for English 'next' the case must be a Saturday
    x = d + dt.timedelta(days=1)
    while x.weekday() != 0:
        x += dt.timedelta(days=1)
    if kind == "xiaxiazhou":
        x += dt.timedelta(days=7)
    return x + dt.timedelta(days=target)


def main():
    meta = json.load(open(META, encoding="utf-8"))
    ids, subjects, mids, texts = set(), set(), set(), set()
    count = collections.Counter()
    labels = collections.Counter()
    subtypes = collections.Counter()
    mixed = collections.Counter()
    local_ne_utc = collections.Counter()
    offsets = collections.Counter()
    utc_trap = collections.Counter()
    n = 0
    with open(PATH, encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            try:
                c = json.loads(line)
            except ValueError as e:
                err(f"line {ln}: bad JSON {e}")
                continue
            n += 1
            cid = c.get("id", "")
            m = ID_RE.match(cid)
            if not m:
                err(f"{cid}: bad id")
                continue
            cat, lang = m.group(1), m.group(2)
            if set(c) != {"id", "category", "lang", "tenant_id", "subject_id", "steps", "expect"}:
                err(f"{cid}: unexpected top-level keys {sorted(c)}")
            if c["category"] != cat or cat not in CATS:
                err(f"{cid}: category mismatch/unknown")
            if c["lang"] != lang:
                err(f"{cid}: lang mismatch")
            if c["tenant_id"] != "h16":
                err(f"{cid}: tenant")
            if c["subject_id"] != f"subj-{cid}" or c["subject_id"] in subjects:
                err(f"{cid}: subject not own/unique")
            if cid in ids:
                err(f"{cid}: duplicate id")
            ids.add(cid)
            subjects.add(c["subject_id"])
            steps = c["steps"]
            if len(steps) != 1 or set(steps[0]) != {"turn"}:
                err(f"{cid}: must have exactly one turn step")
                continue
            t = steps[0]["turn"]
            need = {"message_id", "session_id", "role", "source", "text", "created_at"}
            if set(t) != need:
                err(f"{cid}: turn keys {sorted(t)}")
            if t["message_id"] != f"{cid}-m1" or t["session_id"] != f"{cid}-s1":
                err(f"{cid}: message/session id")
            if t["message_id"] in mids:
                err(f"{cid}: duplicate message id")
            mids.add(t["message_id"])
            if t["role"] != "user" or t["source"] != "user_message":
                err(f"{cid}: role/source")
            text = t["text"]
            if not text.strip() or text in texts:
                err(f"{cid}: empty or duplicate text")
            texts.add(text)
            if lang == "zh" and not CJK.search(text):
                err(f"{cid}: zh case without Chinese")
            if lang == "en" and sum(1 for _ in LATIN_WORD.finditer(text)) < 2:
                err(f"{cid}: en case with too little English")
            ts = t["created_at"]
            if not TS_RE.match(ts):
                err(f"{cid}: created_at {ts!r} not 2026 with explicit offset")
                continue
            tt = dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
            offsets[ts[19:]] += 1
            if tt.date() != tt.astimezone(dt.timezone.utc).date():
                local_ne_utc[cat] += 1
            mm = meta.get(cid)
            if mm is None:
                err(f"{cid}: no meta")
                continue
            subtypes[(cat, mm["subtype"])] += 1
            is_mixed = bool(CJK.search(text)) and bool(LATIN_WORD.search(text)) and mm["mixed"]
            if mm["mixed"]:
                if not (CJK.search(text) and LATIN_WORD.search(text)):
                    err(f"{cid}: marked mixed but is not")
                mixed[lang] += 1
            exp = c["expect"]
            outs = [e for e in exp if "outcome" in e]
            if len(outs) != 1 or outs[0].get("message_id") != t["message_id"]:
                err(f"{cid}: need exactly one outcome on its message")
                continue
            o = outs[0]
            label = o["outcome"]
            labels[(lang, label)] += 1
            count[(cat, lang)] += 1
            if cat in EXPECTED_LABEL and label != EXPECTED_LABEL[cat]:
                err(f"{cid}: label {label} != {EXPECTED_LABEL[cat]}")
            if cat == "control_not_durable":
                want = (
                    "no_durable"
                    if mm["subtype"] in ("one_time", "dated_no_request")
                    else "no_commit"
                )
                if label != want:
                    err(f"{cid}: control label {label} != {want}")
                if label == "no_commit":
                    rex = [e for e in exp if "recall_excludes" in e]
                    if len(rex) != 1 or not all(
                        tok.lower() == tok and tok.lower() in text.lower()
                        for tok in rex[0]["recall_excludes"]
                    ):
                        err(f"{cid}: recall_excludes missing or not from the text")
                elif len(exp) != 1:
                    err(f"{cid}: no_durable controls carry no recall_excludes")
            if label == "commit":
                toks = o.get("value_has")
                if not toks or any(tok != tok.lower() for tok in toks):
                    err(f"{cid}: value_has must be non-empty lower-case tokens")
                    continue
                words = toks
                if cat == "dated_event":
                    if not re.fullmatch(r"\d{4}-\d\d-\d\d", toks[0]):
                        err(f"{cid}: first token must be a date")
                    try:
                        d = recompute(ts, mm["rel"])
                        if mm["rel"][0] == "next" and tt.date().weekday() != 5:
                            err(f"{cid}: English next <weekday> not on a Saturday")
                        if mm["rel"][0] in ("xiazhou", "xiaxiazhou") and tt.date().weekday() == 6:
                            err(f"{cid}: 下周X on a Sunday")
                        utc_created = tt.astimezone(dt.timezone.utc).isoformat()
                        try:
                            if recompute(utc_created, mm["rel"]) != d:
                                utc_trap[lang] += 1
                        except AssertionError:
                            utc_trap[lang] += 1
                        if d.isoformat() != toks[0]:
                            err(f"{cid}: date {toks[0]} != recomputed {d}")
                    except AssertionError as e:
                        err(f"{cid}: {e}")
                    words = toks[1:]
                for tok in words:
                    if tok not in text.lower() and (text, tok) not in NORMALISED_TOKENS:
                        err(f"{cid}: token {tok!r} not in text")
            elif "value_has" in o:
                err(f"{cid}: value_has only on commit")
    # counts
    print(f"cases: {n}")
    langs = collections.Counter(l for (_, l) in count.elements())
    print(
        f"by lang: en {langs['en']}, zh {langs['zh']} (mixed zh/en: en {mixed['en']}, zh {mixed['zh']})"
    )
    print(f"{'category':22s} {'en':>4s} {'zh':>4s} {'all':>4s}")
    for cat in [
        "dated_event",
        "tool_preference",
        "pet_household",
        "team_decision",
        "x_not_y",
        "language_variant",
        "diet_allergy",
        "control_not_durable",
    ]:
        e, z = count[(cat, "en")], count[(cat, "zh")]
        print(f"{cat:22s} {e:4d} {z:4d} {e + z:4d}")
    print("labels:", dict(sorted((f"{l}/{o}", v) for (l, o), v in labels.items())))
    ctrl = sum(v for (c_, _), v in count.items() if c_ == "control_not_durable")
    print(f"controls: {ctrl}/{n} = {ctrl / max(n, 1):.0%}")
    print(
        "control subtypes:",
        dict(sorted((s, v) for (c_, s), v in subtypes.items() if c_ == "control_not_durable")),
    )
    print(
        "dated_event relative kinds:",
        dict(sorted((s, v) for (c_, s), v in subtypes.items() if c_ == "dated_event")),
    )
    print("household persons (tagged):", subtypes[("pet_household", "household_person")])
    print("local day != UTC day:", dict(local_ne_utc), "total", sum(local_ne_utc.values()))
    print("dated events whose answer differs if computed from the UTC day:", dict(utc_trap))
    print("offsets:", dict(sorted(offsets.items())))
    if n < 200 or langs["en"] < 100 or langs["zh"] < 100:
        err("need >=200 cases, >=100 per language")
    if not 0.2 <= ctrl / max(n, 1) <= 0.3:
        err("controls should be about 25%")
    if errors:
        print(f"\n{len(errors)} PROBLEM(S):")
        for e in errors:
            print("  " + e)
        sys.exit(1)
    print("\nOK")


if __name__ == "__main__":
    main()
