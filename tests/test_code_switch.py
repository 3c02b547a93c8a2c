"""English words of the trade inside a Chinese sentence read as their Chinese counterparts
(``text.code_switch``), for the classifier and the extractor's routing (issue 25).

Generated family: Chinese templates whose key noun, stance verb, frequency adverb or
remember verb is written, slot by slot at random, in Chinese or in English (set apart by
spaces or not), with values from the registry's catalogues. Whatever the mix, the
proposals and the gate's decisions equal those of the all-Chinese sentence. English
sentences, and English words that touch no Chinese, are left as they are.
"""

from __future__ import annotations

from zoneinfo import available_timezones

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden_shared.contract.registry import default_registry
from memwarden_shared.text.code_switch import code_switched
from memwarden_usecases.explain import explain
from tests.extract_helpers import proposed

_EDITORS = sorted(default_registry().get("preference", "preference.editor").aliases)  # type: ignore[union-attr]
_ZONES = sorted(z for z in available_timezones() if "/" in z and z.count("/") == 1)[:200]
_MANAGERS = ["npm", "pnpm", "yarn", "bun"]

# {slot:chinese|english} pairs: each slot is drawn in one language or the other
_TEMPLATES = [
    ("我的{时区|timezone}是 {zone}。", "zone"),
    ("帮我{记住|remember}一下，我的{时区|time zone}是 {zone}。", "zone"),
    ("我的{编辑器|editor}{一直|always}是 {editor}。", "editor"),
    ("{我|I}{通常|usually}用 {manager} 装依赖。", "manager"),
    ("{我|I}{一直|always}{用|use} {manager}。", "manager"),
]


def _render(template: str, english: list[bool]) -> str:
    out, rest, i = [], template, 0
    while "{" in rest:
        head, _, tail = rest.partition("{")
        slot, _, rest = tail.partition("}")
        if "|" not in slot:
            out += [head, "{" + slot + "}"]
            continue
        zh, en = slot.split("|")
        out += [head, f" {en} " if english[i % len(english)] else zh]
        i += 1
    return "".join(out) + rest


def _outcome(text: str) -> list[tuple[str, str, str]]:
    return sorted((c.key, c.value, c.decision) for s in explain(text) for c in s.candidates)


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(_TEMPLATES),
    st.lists(st.booleans(), min_size=1, max_size=4),
    st.sampled_from(_EDITORS),
    st.sampled_from(_ZONES),
    st.sampled_from(_MANAGERS),
)
def test_english_words_of_the_trade_inside_chinese_change_nothing_decided(
    template: tuple[str, str], english: list[bool], editor: str, zone: str, manager: str
) -> None:
    values = {"editor": editor, "zone": zone, "manager": manager}
    chinese = _render(template[0], [False]).format(**values)
    switched = " ".join(_render(template[0], english).format(**values).split())
    expected = _outcome(chinese)
    assert expected, chinese  # the all-Chinese sentence decides something
    assert _outcome(switched) == expected, (chinese, switched)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["I", "always", "use", "my", "editor", "is", "vim", "team", "reply"]),
        min_size=2,
        max_size=8,
    ),
    st.sampled_from(["", ". 谢谢你", "! 好的，明白", ", 谢谢"]),
)
def test_english_sentences_stay_as_written(words: list[str], tail: str) -> None:
    # English words that touch no Chinese character are not rewritten
    text = " ".join(words) + tail
    assert code_switched(text) == text


def test_an_english_word_set_apart_from_chinese_by_punctuation_is_kept() -> None:
    # only spaces join a word to its Chinese neighbour: "decision:" before Chinese stays
    assert code_switched("Final decision: 后端都用这个。") == "Final decision: 后端都用这个。"


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(_MANAGERS))
def test_the_value_is_taken_as_written(manager: str) -> None:
    # routing reads the rewritten words; the value still comes from the sentence itself
    assert proposed(f"I usually 用 {manager} 装依赖。") == [("preference.package_manager", manager)]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["阿里云", "腾讯云", "飞书", "钉钉", "华为云"]),
    st.sampled_from(["I use {v} now", "we always use {v} for that", "my team uses {v}"]),
)
def test_a_chinese_name_inside_an_english_sentence_is_no_switch(value: str, template: str) -> None:
    text = "Honestly, " + template.format(v=value) + " at work."
    assert code_switched(text) == text
