"""The chaos workload: English and Chinese turns across many subjects, with durable
statements, preferences that change over time, one-time requests, negations and chatter,
plus the revocations and forgets that are mixed in while the pipeline runs.

Deterministic for a seed, so the distributed run and the embedded oracle see the same input.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

TENANT = "chaos"

# Each subject moves through one of these timelines per key: later created_at, later mind.
PACKAGE_MANAGERS = [
    "I prefer pnpm for all my JavaScript projects.",
    "Actually, I prefer yarn.",
    "我一直用 npm。",
    "I prefer bun over npm.",
]
THEMES = ["我更喜欢深色主题。", "我改主意了，我更喜欢浅色主题。"]
EDITORS = ["我写代码一直用 Vim。", "Actually, my editor is Emacs.", "Vim is my editor of choice."]
LANGUAGES = ["以后都用中文回复我。", "Always reply in English."]
ONE_TIME = [
    "Use npm this time, just for this hotfix.",
    "这次先用英文回复我。",
    "Just for today, use the light theme.",
]
NEGATIONS = [
    "I don't use vim anymore.",
    "我不喜欢深色主题。",
    "I never use yarn.",
]
CHATTER = [
    "My colleague lives in Beijing.",
    "What's the weather like today?",
    "帮我看看这段代码有什么问题。",
    "Thanks, that worked.",
    "今天的会议改到下午三点了吗？",
]
DURABLE = [
    "Remember that I review pull requests only in the afternoon.",
    "请记住，我每周二上午十点开周会。",
    "请记住，我喜欢简洁直接的回答。",
    "请记住，我的时区是 Asia/Shanghai。",
]


@dataclass(frozen=True)
class Workload:
    turns: list[dict[str, Any]]
    revoke: list[str]  # message ids revoked once their turn was decided
    forget: list[str]  # message ids forgotten once their turn was decided

    def write_jsonl(self, path: Path) -> Path:
        with path.open("w", encoding="utf-8") as out:
            for turn in self.turns:
                out.write(json.dumps(turn, ensure_ascii=False) + "\n")
        return path


def build(
    subjects: int = 100, turns_per_subject: int = 20, seed: int = 9, tenant: str = TENANT
) -> Workload:
    """``subjects * turns_per_subject`` turns; a few per subject are command targets.

    Command targets are notes unique to their subject and message, so no other turn of the
    workload touches their fact key: the in-order meaning of "revoke it after it was
    decided" does not depend on when the other turns of the subject are decided.
    """
    rng = random.Random(seed)
    start = datetime(2026, 5, 1, 8, 0, tzinfo=UTC)
    turns: list[dict[str, Any]] = []
    revoke: list[str] = []
    forget: list[str] = []
    for s in range(subjects):
        subject = f"u{s:03d}"
        texts: list[tuple[str, str | None]] = []
        # Preferences that change over time keep their relative order inside the subject.
        for timeline in (PACKAGE_MANAGERS, THEMES, EDITORS, LANGUAGES):
            texts.extend((t, None) for t in timeline[: rng.randint(1, len(timeline))])
        texts.append((rng.choice(DURABLE), None))
        texts.append((f"Remember that my locker for project {s} is number {s * 7 + 3}.", "revoke"))
        texts.append((f"请记住，我的第{s}号项目代号是蓝鲸{s}号。", "forget"))
        while len(texts) < turns_per_subject:
            pool = rng.choice((ONE_TIME, NEGATIONS, CHATTER, CHATTER))
            texts.append((rng.choice(pool), None))
        texts = texts[:turns_per_subject]
        ordered = _interleave_keeping_timelines(texts, rng)
        for i, (text, command) in enumerate(ordered):
            message_id = f"{subject}-m{i:02d}"
            created = start + timedelta(minutes=s) + timedelta(hours=i)
            turns.append(
                {
                    "tenant_id": tenant,
                    "subject_id": subject,
                    "session_id": f"{subject}-s{i // 5}",
                    "message_id": message_id,
                    "role": "user",
                    "source": "user_message",
                    "text": text,
                    "created_at": created.isoformat().replace("+00:00", "Z"),
                }
            )
            if command == "revoke" and s % 2 == 0:
                revoke.append(message_id)
            if command == "forget" and s % 3 == 0:
                forget.append(message_id)
    # File order is time order, subjects interleaved the way a tenant's users write: the
    # embedded run of the file is then the in-order run, whatever the ordering mechanism.
    turns.sort(key=lambda t: (t["created_at"], t["subject_id"]))
    return Workload(turns=turns, revoke=revoke, forget=forget)


def _interleave_keeping_timelines(
    texts: list[tuple[str, str | None]], rng: random.Random
) -> list[tuple[str, str | None]]:
    """A random order of the subject's turns in which each timeline keeps its order."""
    slots = list(range(len(texts)))
    rng.shuffle(slots)
    order = sorted(range(len(texts)), key=lambda i: slots[i])
    # Stable fix-up: within each timeline, reassign its positions in the original order.
    out: list[tuple[str, str | None] | None] = [None] * len(texts)
    groups: dict[int, list[int]] = {}
    for original, _ in enumerate(texts):
        groups.setdefault(_timeline_of(texts[original][0]), []).append(original)
    position = {original: pos for pos, original in enumerate(order)}
    for group, members in groups.items():
        spots = sorted(position[m] for m in members)
        if group < 0:
            for m in members:
                out[position[m]] = texts[m]
        else:
            for m, spot in zip(members, spots, strict=True):
                out[spot] = texts[m]
    return [t for t in out if t is not None]


def _timeline_of(text: str) -> int:
    for n, timeline in enumerate((PACKAGE_MANAGERS, THEMES, EDITORS, LANGUAGES)):
        if text in timeline:
            return n
    return -1
