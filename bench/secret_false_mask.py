"""False masking on ordinary text: how often ingest masks something in text with no secret.

    .venv/bin/python bench/secret_false_mask.py [--show]

Three sources, each masked the way ingest masks (whole sessions, in order):

- the turns of tests/cases/own_cases.jsonl and of the public dev set (beside the
  repository), split by their labels: turns of messages expected to ``commit`` (ordinary
  by label) and turns of cases with no ``secret_absent`` expectation;
- generated ordinary sentences in English and Chinese with dates, times, years, versions,
  counts, prices, order numbers and phone numbers (``_EN``, ``_ZH``), none a secret;
- the look-alikes of ``bench/secret_corpus.py`` (UUIDs, hashes, URLs, Luhn-invalid numbers,
  words about passwords…), one turn each: made to sit next to a secret's shape, some after a
  credential cue, so part of them is masked on purpose (a cue masks every number near it).

A turn counts as falsely masked when anything in it is masked. ``--show`` prints the kinds
masked per turn (never the text of a labelled case); figures only, nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.secret_corpus import lookalikes
from memwarden_shared.detect.secret_mask import mask_session

ROOT = Path(__file__).resolve().parents[1]
SETS = [ROOT / "tests/cases/own_cases.jsonl", ROOT.parent / "shared/eval/devset.jsonl"]
SETS = [p for p in SETS if p.exists()] + [Path("/work/shared/eval/devset.jsonl")]

_EN = [
    "I moved to Lisbon on {date} and started work at {time}.",
    "Our standup is at {time} every day since {year}.",
    "Please upgrade to version {version} before {date}.",
    "We shipped {count} items last week, about {big} users saw it.",
    "The flight leaves at {time} on {date}, gate B{small}.",
    "My order #{order} arrived yesterday.",
    "Ticket {order} is still open, I'll check it {date}.",
    "Call me at +1 415 555 {four} if the build breaks.",
    "I prefer pnpm and I have used it since {year}.",
    "The report covers {year}-{year2} and costs ${big}.",
    "I ran {count} tests in {small}.{small}s on Python 3.{small}.",
    "Remember that I review pull requests after {time}.",
]
_ZH = [
    "我{year}年搬到了上海，每天{time}上班。",
    "我们在{date}发布了版本{version}。",
    "订单号{order}已经到了。",
    "上周卖了{count}件，大约{big}人看过。",
    "我的手机号是138{eight}，有事打给我。",
    "记住我喜欢用pnpm，从{year}年开始用的。",
    "会议改到{date} {time}，在3号会议室。",
    "这个项目有{count}个测试，跑了{small}分钟。",
]


def _fill(template: str, rng: random.Random) -> str:
    year = rng.randint(1990, 2030)
    return template.format(
        date=f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        time=f"{rng.randint(0, 23):02d}:{rng.choice(['00', '15', '30', '45'])}",
        year=year,
        year2=year + rng.randint(1, 5),
        version=f"{rng.randint(1, 30)}.{rng.randint(0, 20)}.{rng.randint(0, 99)}",
        count=rng.randint(2, 999),
        big=rng.choice([1000, 25000, 100000, 2000000]),
        small=rng.randint(1, 9),
        order=rng.randint(10_000_000, 99_999_999),
        four=f"{rng.randint(0, 9999):04d}",
        eight=f"{rng.randint(0, 99_999_999):08d}",
    )


def generated(n: int = 400, seed: int = 21) -> list[list[str]]:
    """``n`` one-turn sessions of ordinary sentences, half English, half Chinese."""
    rng = random.Random(seed)
    return [[_fill(rng.choice(_EN if i % 2 else _ZH), rng)] for i in range(n)]


def labelled() -> tuple[list[list[str]], set[str], set[str]]:
    """Sessions of the labelled sets, the texts expected to commit, the texts of cases
    without a planted secret."""
    sessions: dict[tuple[str, str], list[str]] = {}
    commit_texts: set[str] = set()
    plain_texts: set[str] = set()
    for path in dict.fromkeys(SETS):
        if not path.exists():
            continue
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            texts = {}
            for step in case["steps"]:
                turn = step.get("turn")
                if turn and "text" in turn:
                    key = (case["id"], turn.get("session_id", ""))
                    sessions.setdefault(key, []).append(turn["text"])
                    texts[turn["message_id"]] = turn["text"]
            expects = [e for e in case.get("expect", []) if isinstance(e, dict)]
            for e in expects:
                if e.get("outcome") == "commit" and e.get("message_id") in texts:
                    commit_texts.add(texts[e["message_id"]])
            if not any("secret_absent" in e for e in expects):
                plain_texts.update(texts.values())
    return list(sessions.values()), commit_texts, plain_texts


def _rate(sessions: list[list[str]], keep: set[str] | None, show: bool) -> tuple[int, int]:
    masked = total = 0
    kinds: Counter[str] = Counter()
    for turns in sessions:
        for text, m in zip(turns, mask_session(turns), strict=True):
            if keep is not None and text not in keep:
                continue
            total += 1
            if m.spans:
                masked += 1
                kinds.update({s.kind for s in m.spans})
    if show:
        print("   kinds:", dict(kinds))
    return masked, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--show", action="store_true")
    args = parser.parse_args()
    sessions, commit_texts, plain_texts = labelled()
    for name, group, keep in (
        ("labelled: expected to commit", sessions, commit_texts),
        ("labelled: cases without a planted secret", sessions, plain_texts),
        ("generated ordinary sentences (en, zh)", generated(), None),
        ("secret_corpus look-alikes", [[c.text] for c in lookalikes(random.Random(7))], None),
    ):
        masked, total = _rate(group, keep, args.show)
        print(f"{name:45s} {masked:4d} / {total:4d} turns masked = {masked / max(total, 1):.3f}")


if __name__ == "__main__":
    main()
