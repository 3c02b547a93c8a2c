"""The injection format of recall (seed 004): what a prompt receives is a block of historical
records, each with its pointer back to the source and the notice that it is not current
verification. Pure: recalled memories in, text out; English and Chinese.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from memwarden_recall.query import Recalled

Lang = Literal["en", "zh"]

HEADER = {
    "en": "Remembered context (historical record, not current verification; "
    "re-check before acting on it):",
    "zh": "记忆上下文（历史记录，不是当前核实；据此行动前请重新核实）：",
}
NOTICE = {
    "en": "historical record, not current verification",
    "zh": "历史记录，不是当前核实",
}
POINTER = {
    "en": "memory {memory_id} v{version}; evidence messages: {evidence}",
    "zh": "记忆 {memory_id} 第 {version} 版；证据消息：{evidence}",
}
EMPTY = {"en": "(no remembered context)", "zh": "（没有可用的记忆）"}
NONE = {"en": "none", "zh": "无"}


def render_context(memories: Sequence[Recalled], lang: Lang = "en") -> str:
    """One block: a header, then per memory its value, pointer and notice."""
    if not memories:
        return EMPTY[lang] + "\n"
    lines = [HEADER[lang]]
    for m in memories:
        evidence = ", ".join(m.evidence_message_ids) or NONE[lang]
        value = json.dumps(m.value, ensure_ascii=False)
        pointer = POINTER[lang].format(memory_id=m.memory_id, version=m.version, evidence=evidence)
        lines.append(f"- {m.normalized_key}: {value}")
        lines.append(f"  [{pointer}] [{NOTICE[lang]}]")
    return "\n".join(lines) + "\n"
