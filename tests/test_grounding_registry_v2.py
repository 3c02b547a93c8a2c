"""Grounding of registry v2 values: a language in any of its surface forms (never one the
sentence does not name, never a variant dropped or added), and dated events."""

from __future__ import annotations

import datetime as dt

import pytest

from memwarden_shared.contract.registry import default_registry
from memwarden_shared.detect.grounding import ungrounded_reason

REGISTRY = default_registry()
LANGUAGE = REGISTRY.keys[("preference", "preference.language")]
EVENT = REGISTRY.keys[("task_fact", "task_fact.event")]
OK = None
NG = "value_not_grounded"
# Wednesday 2026-03-04, 09:00 in the writer's +08:00
ANCHOR = dt.datetime(2026, 3, 4, 9, 0, tzinfo=dt.timezone(dt.timedelta(hours=8)))


@pytest.mark.parametrize(
    ("value", "sentence", "reason"),
    [
        ("en-GB British English 英式英语", "Please reply in British English.", OK),
        ("British English", "以后用英式英语回答我。", OK),
        ("en-GB British English 英式英语", "Reply in en-GB spelling please.", OK),
        ("en English 英语", "Please reply in British English.", NG),  # variant dropped
        ("en-GB British English 英式英语", "Please reply in English.", NG),  # variant added
        ("zh Chinese 中文", "Please reply in Chinese.", OK),
        ("中文", "Please reply in Chinese.", OK),
        ("English", "以后请用英文回复我。", OK),
        ("zh-Hant Traditional Chinese 繁体中文", "以后请用繁體中文回复。", OK),
        (
            "zh-Hant Traditional Chinese 繁体中文",
            "Please always respond in Traditional Chinese.",
            OK,
        ),
        ("zh Chinese 中文", "Please always respond in Traditional Chinese.", NG),
        ("pt Portuguese 葡萄牙语", "Please answer in Portuguese from now on.", OK),
        ("pt-BR Brazilian Portuguese 巴西葡萄牙语", "Please answer in Portuguese from now on.", NG),
        ("vi Vietnamese 越南语", "Reply in Vietnamese please.", OK),
        ("eo Esperanto 世界语", "Reply in Esperanto please.", OK),  # outside the table
        ("fr French 法语", "Reply in Esperanto please.", NG),
        ("ja Japanese 日语", "以后回复我都用中文。", NG),
        ("fr French 法语", "Remember to reply in English, not French.", NG),  # turned down
        ("en English 英语", "Remember to reply in English, not French.", OK),
        ("de German 德语", "On Fridays, reply in German.", "qualifier_dropped"),
    ],
)
def test_grounding__language(value: str, sentence: str, reason: str | None) -> None:
    assert ungrounded_reason(value, sentence, LANGUAGE, ANCHOR) == reason


@pytest.mark.parametrize(
    ("value", "sentence", "reason"),
    [
        (
            "2026-03-06 10:00 design review",
            "Remember that the design review is the day after tomorrow at 10am.",
            OK,
        ),
        (
            "2026-03-06 11:00 design review",
            "Remember that the design review is the day after tomorrow at 10am.",
            NG,
        ),
        (
            "2026-03-05 10:00 design review",
            "Remember that the design review is the day after tomorrow at 10am.",
            NG,
        ),
        ("2026-03-13 我们上线", "记一下，我们下周五上线。", OK),
        ("2026-03-13 上线", "记一下，我们下周五上线。", OK),
        ("2026-03-13 我们下线", "记一下，我们下周五上线。", NG),
        ("2026-03-13 面试", "记住我 next Friday 要去面试。", OK),
        ("2026-03-13 15:00 去面试", "记住我下周五下午3点要去面试。", OK),
        ("2026-03-13 03:00 去面试", "记住我下周五下午3点要去面试。", NG),
        ("2026-03-20 tax filing deadline", "Remember the tax filing deadline is March 20.", OK),
        ("2026-03-20 launch party", "Remember the tax filing deadline is March 20.", NG),
        ("2026-04-01 合同到期", "请记住合同4月1日到期。", OK),
        ("2026-04-01 合同到期", "请记住合同2026-04-01到期。", OK),
        ("2026-03-06 design review", "Remember that the design review is not on Friday.", NG),
    ],
)
def test_grounding__dated_event(value: str, sentence: str, reason: str | None) -> None:
    assert ungrounded_reason(value, sentence, EVENT, ANCHOR) == reason
